/** LastUseRecorder: a token's last use is written in the background, never failing or holding its request. */
import { describe, expect, it } from 'vitest';
import { LastUseRecorder } from '../../src/records/last-use.js';
import type { TokenRow } from '../../src/records/rows.js';

const row = (lastUsed: string | null): TokenRow => ({ id: 'tok1', name: 'n', scopes: 'labels:read', created_at: '2026-01-01T00:00:00.000Z', last_used_at: lastUsed, revoked_at: null });

describe('LastUseRecorder', () => {
  it('returns at once with the use recorded, while the write is still in flight', () => {
    const writes: string[] = [];
    const recorder = new LastUseRecorder((_id, now) => {
      writes.push(now);
      return new Promise(() => {}); // never settles: the request must not care
    });
    const seen = recorder.record(row(null));
    expect(seen.last_used_at).toBe(writes[0]);
  });

  it('writes nothing when the last use is recent, and at most one write in flight per token', async () => {
    const writes: string[] = [];
    let release!: () => void;
    const recorder = new LastUseRecorder((_id, now) => {
      writes.push(now);
      return new Promise<void>((resolve) => (release = resolve));
    });
    recorder.record(row(new Date().toISOString()));
    expect(writes).toHaveLength(0);
    for (let i = 0; i < 20; i++) recorder.record(row(null));
    expect(writes).toHaveLength(1);
    release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    // One follow-up carries the latest use seen meanwhile (the first write may have found a newer value).
    expect(writes).toHaveLength(2);
    release();
    await recorder.flush();
    expect(writes).toHaveLength(2);
  });

  it('a failing write is reported, never thrown at the request', async () => {
    const errors: unknown[] = [];
    const recorder = new LastUseRecorder(() => Promise.reject(new Error('disk I/O error')), (err) => errors.push(err));
    expect(() => recorder.record(row(null))).not.toThrow();
    await recorder.flush();
    expect(errors).toHaveLength(1);
  });
});
