/**
 * ajv-formats is CommonJS: under NodeNext its default import is the module
 * object, with the function on `.default`. One place resolves that.
 */
import formatsModule from 'ajv-formats';

type AddFormats = <A>(ajv: A) => A;
const mod = formatsModule as unknown as AddFormats & { default?: AddFormats };
export const addFormats: AddFormats = mod.default ?? mod;
