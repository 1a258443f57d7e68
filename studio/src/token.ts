/**
 * The API token lives in sessionStorage only: gone when the tab closes, never in a
 * cookie (nothing is sent without being asked) and never in the address bar.
 */
const KEY = 'labelmaker.token';

export const storedToken = (): string | null => sessionStorage.getItem(KEY);
export const storeToken = (token: string): void => sessionStorage.setItem(KEY, token);
export const forgetToken = (): void => sessionStorage.removeItem(KEY);
