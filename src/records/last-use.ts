/**
 * A token's "last used" time is bookkeeping: it must never fail or delay the
 * request that used the token. Writes go out in the background, at most one in
 * flight per token, and their failures are only counted (the store's health
 * sees them like any other write).
 */
import { lastUseToRecord, type TokenRow } from './rows.js';

export type TouchWrite = (tokenId: string, now: string, cutoff: string) => Promise<unknown>;

export class LastUseRecorder {
  /** Per token: the write in flight, and the latest use seen meanwhile (written after it). */
  private readonly inFlight = new Map<string, { done: Promise<void>; next?: string }>();

  constructor(
    private readonly write: TouchWrite,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /**
   * Schedules the write when the row's last use is older than the resolution, and
   * returns the row as it will read once written (the request sees its own use).
   */
  record(row: TokenRow): TokenRow {
    const use = lastUseToRecord(row.last_used_at);
    if (!use) return row;
    const pending = this.inFlight.get(row.id);
    if (pending) {
      // This read may predate the write in flight, or that write may have found a newer
      // value and written nothing: one follow-up write settles it (a no-op if not needed).
      pending.next = use.now;
    } else {
      this.start(row.id, use.now, use.cutoff);
    }
    return { ...row, last_used_at: use.now };
  }

  /** Waits for the writes already scheduled (listing tokens shows them). */
  async flush(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight.values()].map((p) => p.done));
  }

  private start(id: string, now: string, cutoff: string): void {
    const entry: { done: Promise<void>; next?: string } = { done: Promise.resolve() };
    entry.done = this.write(id, now, cutoff).then(
      () => {},
      (err: unknown) => this.onError(err),
    ).finally(() => {
      this.inFlight.delete(id);
      if (entry.next) this.start(id, entry.next, entry.next);
    });
    this.inFlight.set(id, entry);
  }
}
