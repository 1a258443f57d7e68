/**
 * The Store contract, written once and run against every implementation
 * (sqlite-store.test.ts, postgres-store.test.ts). Not a test file itself: each
 * implementation calls storeContract() with a factory for fresh, empty databases.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { demoRecords, DEMO_LOCATIONS } from '../../src/records/demo.js';
import { parseCatalogue } from '../../src/records/fields.js';
import { importRecords } from '../../src/records/import/import.js';
import { deleteRecord } from '../../src/records/import/write.js';
import { LATEST_VERSION, MIGRATIONS } from '../../src/records/migrations.js';
import { generateToken, hashToken } from '../../src/records/tokens.js';
import type { ClaimedDelivery, ConsumerLease, EventType, NewEvent, NewPrintJob, NewWebhook, PrinterSettings, PrintJobQuery, PrintRule, RecordInput, RecordKey, RecordSyncKey, SavedTemplate, Scope, Store } from '../../src/records/types.js';

export interface StoreHarness {
  store: Store;
  /** Opens another Store on the same database (running migrations again). */
  reopen(): Promise<Store>;
  /** Raw SQL against the same database, for inspecting or tampering with what the store wrote. */
  query(sql: string): Promise<Record<string, unknown>[]>;
  /** Closes every store it opened and deletes the database. */
  destroy(): Promise<void>;
}

const loc = (id: string, name: string, parentId: string | null = null): RecordInput => ({ kind: 'location', id, name, description: '', parentId, assetId: null });
const item = (id: string, name: string, assetId: number | null, parentId: string | null = null): RecordInput => ({ kind: 'item', id, name, description: `about ${name}`, parentId, assetId });

export function storeContract(name: string, factory: () => Promise<StoreHarness>): void {
  describe(name, () => {
    let h: StoreHarness;
    let store: Store;
    beforeEach(async () => {
      h = await factory();
      store = h.store;
    });
    afterEach(async () => {
      await h.destroy();
    });

    describe('records', () => {
      it('starts empty and answers ping', async () => {
        await expect(store.ping()).resolves.toBeUndefined();
        expect(await store.records.count()).toBe(0);
        expect(await store.records.getLocation('nope')).toBeUndefined();
        expect(await store.records.getItem('nope')).toBeUndefined();
        expect(await store.records.getItemByAssetId(1)).toBeUndefined();
      });

      it('round-trips every field, defaulting updatedAt to now', async () => {
        const before = new Date().toISOString();
        await store.records.upsertMany([loc('shelf', 'Shelf'), item('drill', 'Дрель', 42, 'shelf')]);
        const after = new Date().toISOString();
        const got = await store.records.getItem('drill');
        expect(got).toMatchObject({ kind: 'item', id: 'drill', name: 'Дрель', description: 'about Дрель', parentId: 'shelf', assetId: 42 });
        expect(got!.updatedAt >= before && got!.updatedAt <= after).toBe(true);
        expect(await store.records.getLocation('shelf')).toMatchObject({ kind: 'location', parentId: null, assetId: null, description: '' });
        expect(await store.records.getItemByAssetId(42)).toEqual(got);
        expect(await store.records.count()).toBe(2);
      });

      it('keeps a given updatedAt, normalised to UTC ISO form', async () => {
        await store.records.upsertMany([{ ...loc('a', 'A'), updatedAt: '2024-02-03T04:05:06+02:00' }]);
        expect((await store.records.getLocation('a'))!.updatedAt).toBe('2024-02-03T02:05:06.000Z');
      });

      it('stores the largest 12-digit asset id exactly', async () => {
        await store.records.upsertMany([item('big', 'Big', 999_999_999_999)]);
        expect((await store.records.getItemByAssetId(999_999_999_999))?.assetId).toBe(999_999_999_999);
      });

      it('keeps locations and items with the same id apart', async () => {
        await store.records.upsertMany([loc('x', 'Location X'), item('x', 'Item X', 1)]);
        expect((await store.records.getLocation('x'))!.name).toBe('Location X');
        expect((await store.records.getItem('x'))!.name).toBe('Item X');
        expect(await store.records.count()).toBe(2);
      });

      it('replaces existing records on upsert, last duplicate in a batch winning', async () => {
        await store.records.upsertMany([item('i', 'Old', 7)]);
        await store.records.upsertMany([item('i', 'Newer', 8), item('i', 'Newest', 9)]);
        expect(await store.records.count()).toBe(1);
        expect(await store.records.getItem('i')).toMatchObject({ name: 'Newest', assetId: 9 });
        expect(await store.records.getItemByAssetId(7)).toBeUndefined();
        await store.records.upsertMany([]);
        expect(await store.records.count()).toBe(1);
      });

      it('upserts all or nothing', async () => {
        await store.records.upsertMany([item('taken', 'Taken', 5)]);
        // The third record reuses asset 5 and must take the first two down with it.
        const batch = [loc('new-loc', 'New'), item('new-item', 'New item', 6), item('thief', 'Thief', 5)];
        await expect(store.records.upsertMany(batch)).rejects.toThrow();
        expect(await store.records.count()).toBe(1);
        expect(await store.records.getLocation('new-loc')).toBeUndefined();
        // Store constraints also reject an asset id on a location and an unknown kind.
        await expect(store.records.upsertMany([{ ...loc('l', 'L'), assetId: 3 }])).rejects.toThrow();
        await expect(store.records.upsertMany([{ ...loc('l', 'L'), kind: 'bin' as 'location' }])).rejects.toThrow();
        expect(await store.records.count()).toBe(1);
      });

      it('holds the demo inventory, non-Latin names intact', async () => {
        const demo = demoRecords();
        await store.records.upsertMany(demo);
        expect(await store.records.count()).toBe(demo.length);
        for (const r of demo) {
          const got = r.kind === 'item' ? await store.records.getItem(r.id) : await store.records.getLocation(r.id);
          expect(got).toMatchObject({ ...r });
        }
      });
    });

    describe('locationPath', () => {
      it('lists names from the top down to the location', async () => {
        await store.records.upsertMany(demoRecords());
        expect(await store.records.locationPath(DEMO_LOCATIONS.bin12)).toEqual(['Home', 'Garage', 'Shelf 3', 'Bin 12']);
        expect(await store.records.locationPath(DEMO_LOCATIONS.home)).toEqual(['Home']);
        expect(await store.records.locationPath(DEMO_LOCATIONS.workbench)).toEqual(['Workshop', 'Workbench']);
      });

      it('is empty for unknown ids and for items', async () => {
        await store.records.upsertMany([loc('l', 'L'), item('i', 'I', null, 'l')]);
        expect(await store.records.locationPath('missing')).toEqual([]);
        expect(await store.records.locationPath('i')).toEqual([]);
      });

      it('stops at a dangling parent', async () => {
        await store.records.upsertMany([loc('orphan', 'Orphan', 'gone')]);
        expect(await store.records.locationPath('orphan')).toEqual(['Orphan']);
      });

      it('terminates on parent cycles', async () => {
        await store.records.upsertMany([loc('a', 'A', 'c'), loc('b', 'B', 'a'), loc('c', 'C', 'b')]);
        expect(await store.records.locationPath('a')).toEqual(['B', 'C', 'A']);
      });

      it('follows at most 32 levels', async () => {
        const chain = Array.from({ length: 40 }, (_, i) => loc(`l${i}`, `L${i}`, i === 0 ? null : `l${i - 1}`));
        await store.records.upsertMany(chain);
        const path = await store.records.locationPath('l39');
        expect(path).toHaveLength(32);
        expect(path[0]).toBe('L8');
        expect(path.at(-1)).toBe('L39');
      });
    });

    describe('getWithPath', () => {
      /** What a label read before getWithPath: the record, then its parent's locationPath. */
      const separately = async (key: RecordKey) => {
        const r = store.records;
        const record = 'assetId' in key ? await r.getItemByAssetId(key.assetId) : key.kind === 'item' ? await r.getItem(key.id) : await r.getLocation(key.id);
        return record && { record, path: record.parentId ? await r.locationPath(record.parentId) : [] };
      };
      /** getWithPath's answer, checked against the two separate reads. */
      const both = async (key: RecordKey) => {
        const got = await store.records.getWithPath(key);
        expect(got).toEqual(await separately(key));
        return got;
      };

      it('gives a record with the path of the locations it sits in, top first', async () => {
        await store.records.upsertMany([loc('room', 'Room'), loc('shelf', 'Shelf', 'room'), loc('bin', 'Bin', 'shelf'), item('drill', 'Drill', 7, 'bin')]);
        const drill = await both({ kind: 'item', id: 'drill' });
        expect(drill).toMatchObject({ record: { kind: 'item', id: 'drill', name: 'Drill', assetId: 7 }, path: ['Room', 'Shelf', 'Bin'] });
        expect(await both({ assetId: 7 })).toEqual(drill);
        expect((await both({ kind: 'location', id: 'bin' }))?.path).toEqual(['Room', 'Shelf']);
      });

      it('gives an empty path to a record without a parent', async () => {
        await store.records.upsertMany([loc('room', 'Room'), item('loose', 'Loose', 3)]);
        expect(await both({ kind: 'location', id: 'room' })).toMatchObject({ record: { id: 'room' }, path: [] });
        expect(await both({ assetId: 3 })).toMatchObject({ record: { id: 'loose' }, path: [] });
      });

      it('finds nothing for an unknown id or asset id, or the other kind', async () => {
        await store.records.upsertMany([loc('room', 'Room'), item('drill', 'Drill', 7, 'room')]);
        for (const key of [{ kind: 'item', id: 'nope' }, { kind: 'location', id: 'nope' }, { kind: 'location', id: 'drill' }, { kind: 'item', id: 'room' }, { assetId: 8 }] as RecordKey[]) {
          expect(await both(key)).toBeUndefined();
        }
      });

      it('walks a parent cycle once round, as locationPath does', async () => {
        await store.records.upsertMany([loc('a', 'A', 'c'), loc('b', 'B', 'a'), loc('c', 'C', 'b'), item('i', 'I', 1, 'a')]);
        expect((await both({ kind: 'location', id: 'a' }))?.path).toEqual(['A', 'B', 'C']);
        expect((await both({ assetId: 1 }))?.path).toEqual(['B', 'C', 'A']);
      });

      it('follows at most 32 levels', async () => {
        const chain = Array.from({ length: 40 }, (_, i) => loc(`l${i}`, `L${i}`, i === 0 ? null : `l${i - 1}`));
        await store.records.upsertMany([...chain, item('deep', 'Deep', 2, 'l39')]);
        const deep = await both({ kind: 'item', id: 'deep' });
        expect(deep?.path).toHaveLength(32);
        expect([deep?.path[0], deep?.path.at(-1)]).toEqual(['L8', 'L39']);
        expect((await both({ kind: 'location', id: 'l39' }))?.path.slice(0, 1)).toEqual(['L7']);
      });

      it('stops at a parent that was deleted', async () => {
        await store.records.upsertMany([loc('room', 'Room'), loc('shelf', 'Shelf', 'room'), item('drill', 'Drill', 7, 'shelf')]);
        await h.query(`DELETE FROM records WHERE kind = 'location' AND id = 'room'`);
        expect(await both({ kind: 'location', id: 'shelf' })).toMatchObject({ record: { parentId: 'room' }, path: [] });
        expect((await both({ assetId: 7 }))?.path).toEqual(['Shelf']);
      });
    });

    describe('tokens', () => {
      const newToken = (name = 'ci', scopes: Scope[] = ['labels:read']) => {
        const { id, token } = generateToken();
        return { id, token, hash: hashToken(token), name, scopes };
      };

      it('inserts, finds by hash and lists', async () => {
        const t = newToken('printer', ['labels:print', 'labels:read']);
        const info = await store.tokens.insert(t);
        expect(info).toMatchObject({ id: t.id, name: 'printer', scopes: ['labels:read', 'labels:print'], lastUsedAt: null, revokedAt: null });
        const found = await store.tokens.findActiveByHash(t.hash);
        expect(found).toMatchObject({ id: t.id, createdAt: info.createdAt });
        expect(found!.lastUsedAt).not.toBeNull();
        expect(await store.tokens.findActiveByHash(hashToken('lm_wrong'))).toBeUndefined();
        expect((await store.tokens.list()).map((x) => x.id)).toEqual([t.id]);
        expect(await store.tokens.count()).toBe(1);
      });

      it('keeps an integration key\'s scopes (integrations:render, integrations:print), with no migration', async () => {
        const t = newToken('homebox', ['integrations:print', 'integrations:render']);
        await store.tokens.insert(t);
        expect((await store.tokens.findActiveByHash(t.hash))!.scopes).toEqual(['integrations:render', 'integrations:print']);
        expect((await store.tokens.revoke(t.id))).toBe(true);
        expect(await store.tokens.findActiveByHash(t.hash)).toBeUndefined();
      });

      it('stores only the hash, never the plaintext', async () => {
        const t = newToken();
        await store.tokens.insert(t);
        const rows = await h.query('SELECT * FROM api_tokens');
        expect(rows).toHaveLength(1);
        expect(rows[0]!.hash).toBe(t.hash);
        for (const value of Object.values(rows[0]!)) expect(String(value)).not.toContain(t.token.slice(12));
      });

      it('rejects a duplicate hash or id', async () => {
        const t = newToken();
        await store.tokens.insert(t);
        await expect(store.tokens.insert({ ...t, id: 'otherid2' })).rejects.toThrow();
        await expect(store.tokens.insert({ ...t, hash: hashToken('other') })).rejects.toThrow();
        expect(await store.tokens.count()).toBe(1);
      });

      it('records use at most once a minute', async () => {
        const t = newToken();
        await store.tokens.insert(t);
        const first = (await store.tokens.findActiveByHash(t.hash))!.lastUsedAt;
        expect(first).not.toBeNull();
        const recent = new Date(Date.now() - 30_000).toISOString();
        await h.query(`UPDATE api_tokens SET last_used_at = '${recent}'`);
        expect((await store.tokens.findActiveByHash(t.hash))!.lastUsedAt).toBe(recent);
        await h.query(`UPDATE api_tokens SET last_used_at = '2020-01-01T00:00:00.000Z'`);
        const later = (await store.tokens.findActiveByHash(t.hash))!.lastUsedAt;
        expect(later! > '2020-01-01T00:00:00.000Z').toBe(true);
        expect((await store.tokens.list())[0]!.lastUsedAt).toBe(later);
      });

      it('does not find revoked tokens', async () => {
        const keep = newToken('keep');
        const drop = newToken('drop');
        await store.tokens.insert(keep);
        await store.tokens.insert(drop);
        expect(await store.tokens.revoke(drop.id)).toBe(true);
        expect(await store.tokens.findActiveByHash(drop.hash)).toBeUndefined();
        expect(await store.tokens.findActiveByHash(keep.hash)).toBeDefined();
        expect(await store.tokens.revoke(drop.id)).toBe(false);
        expect(await store.tokens.revoke('unknown1')).toBe(false);
        const listed = await store.tokens.list();
        expect(listed.find((x) => x.id === drop.id)!.revokedAt).not.toBeNull();
        expect(listed.find((x) => x.id === keep.id)!.revokedAt).toBeNull();
        expect(await store.tokens.count()).toBe(2); // revoked tokens still count
      });
    });

    describe('print jobs', () => {
      const job = (id: string, key: string | null = null, tokenId = 'tok1'): NewPrintJob => ({
        id, printer: 'file:///tmp/x', template: 'brother-ql-62x29', title: `label ${id}`, fields: { kind: 'item', name: 'Drill' },
        tokenId, idempotencyKey: key, maxAttempts: 3, png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]),
      });
      const longAgo = '2000-01-01T00:00:00.000Z';

      it('stores a job queued, with its document, and reads it back', async () => {
        const { job: stored, created } = await store.printJobs.submit(job('j1'), longAgo);
        expect(created).toBe(true);
        expect(stored).toMatchObject({ id: 'j1', state: 'queued', attempts: 0, maxAttempts: 3, lastError: null, printedAt: null, batchId: null, fields: { kind: 'item', name: 'Drill' } });
        expect(await store.printJobs.get('j1')).toEqual(stored);
        expect(await store.printJobs.get('nope')).toBeUndefined();
        const claimed = await store.printJobs.claim('w1', 60_000);
        expect(claimed?.png.equals(job('j1').png)).toBe(true);
      });

      it('same token and idempotency key: the same job, nothing new stored', async () => {
        const first = await store.printJobs.submit(job('j1', 'key-1'), longAgo);
        const again = await store.printJobs.submit(job('j2', 'key-1'), longAgo);
        expect(again.created).toBe(false);
        expect(again.job.id).toBe('j1');
        expect(await store.printJobs.get('j2')).toBeUndefined();
        // Another token may use the same key.
        const other = await store.printJobs.submit(job('j3', 'key-1', 'tok2'), longAgo);
        expect(other.created).toBe(true);
        // An expired key (older than keySince) may be reused.
        const later = await store.printJobs.submit(job('j4', 'key-1'), new Date(Date.now() + 1000).toISOString());
        expect(later.created).toBe(true);
        expect(later.job.id).toBe('j4');
        expect(first.job.id).toBe('j1');
      });

      describe('batches', () => {
        const batch = (id: string, key: string | null = null, hash = 'h1') => ({ id, tokenId: 'tok1', idempotencyKey: key, requestHash: hash, printer: 'file:///tmp/x', template: 'brother-ql-62x29' });
        const jobs = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => job(`${prefix}-${String(i).padStart(3, '0')}`));

        it('stores a batch and all its jobs at once; they are claimed in the order given', async () => {
          const { batch: stored, created } = await store.printJobs.submitBatch(batch('b1'), jobs('b1', 250), longAgo);
          expect(created).toBe(true);
          expect(stored).toMatchObject({ id: 'b1', tokenId: 'tok1', requestHash: 'h1', counts: { queued: 250, printing: 0, printed: 0, failed: 0 } });
          expect(stored.jobIds).toEqual(jobs('b1', 250).map((j) => j.id));
          expect(await store.printJobs.getBatch('b1')).toEqual(stored);
          expect(await store.printJobs.getBatch('nope')).toBeUndefined();
          const first = await store.printJobs.claim('w1', 60_000);
          const second = await store.printJobs.claim('w1', 60_000);
          expect([first?.id, second?.id]).toEqual(['b1-000', 'b1-001']);
          // Each job knows its batch, on every read (get, claim, list).
          expect(first?.batchId).toBe('b1');
          expect((await store.printJobs.get('b1-249'))?.batchId).toBe('b1');
          expect((await store.printJobs.list({ tokenId: 'tok1', batchId: 'b1', limit: 2 })).jobs.map((j) => j.batchId)).toEqual(['b1', 'b1']);
          await store.printJobs.markPrinted(first!.id, 'w1');
          await store.printJobs.markFailed(second!.id, 'w1', 'jammed');
          expect((await store.printJobs.getBatch('b1'))!.counts).toEqual({ queued: 248, printing: 0, printed: 1, failed: 1, cancelled: 0 });
        });

        it('all or nothing: a batch with a job that cannot be stored stores nothing', async () => {
          await store.printJobs.submit(job('taken'), longAgo);
          await expect(store.printJobs.submitBatch(batch('b2'), [...jobs('b2', 5), job('taken')], longAgo)).rejects.toThrow();
          expect(await store.printJobs.getBatch('b2')).toBeUndefined();
          expect(await store.printJobs.get('b2-000')).toBeUndefined();
        });

        it('same token and key: the same batch, nothing new stored; an expired key may be reused', async () => {
          await store.printJobs.submitBatch(batch('b3', 'k'), jobs('b3', 3), longAgo);
          const again = await store.printJobs.submitBatch(batch('b4', 'k', 'h2'), jobs('b4', 3), longAgo);
          expect(again.created).toBe(false);
          expect(again.batch).toMatchObject({ id: 'b3', requestHash: 'h1' });
          expect(await store.printJobs.get('b4-000')).toBeUndefined();
          const later = await store.printJobs.submitBatch(batch('b5', 'k'), jobs('b5', 1), new Date(Date.now() + 1000).toISOString());
          expect(later.created).toBe(true);
        });
      });

      it('claims each due job once, oldest first, under a lease', async () => {
        await store.printJobs.submit(job('a'), longAgo);
        await store.printJobs.submit(job('b'), longAgo);
        const first = await store.printJobs.claim('w1', 60_000);
        const second = await store.printJobs.claim('w2', 60_000);
        expect([first?.id, second?.id]).toEqual(['a', 'b']);
        expect(first).toMatchObject({ state: 'printing', attempts: 1 });
        expect(await store.printJobs.claim('w3', 60_000)).toBeUndefined();
      });

      it('appends print_job.printed, failed and held to the outbox with the state change, and nothing for a change that did not happen', async () => {
        const types = async () => (await store.events.after(0, 100)).map((e) => [e.type, e.subject.kind, e.subject.id]);
        await store.printJobs.submit(job('a'), longAgo);
        await store.printJobs.submit(job('b'), longAgo);
        expect(await types()).toEqual([]);
        await store.printJobs.claim('w1', 60_000);
        expect(await store.printJobs.markPrinted('a', 'intruder')).toBe(false);
        expect(await store.printJobs.markPrinted('a', 'w1')).toBe(true);
        await store.printJobs.claim('w1', 60_000);
        expect(await store.printJobs.markFailed('b', 'w1', 'out of paper')).toBe(true);
        expect(await store.printJobs.markFailed('b', 'w1', 'again')).toBe(false);
        const [printed, failed] = await store.events.after(0, 100);
        expect(printed).toMatchObject({ type: 'print_job.printed', subject: { kind: 'print_job', id: 'a' }, data: { job: { id: 'a', state: 'printed', title: 'label a', attempts: 1 } } });
        expect((printed!.data as { job: Record<string, unknown> }).job).not.toHaveProperty('tokenId');
        expect(failed).toMatchObject({ type: 'print_job.failed', data: { job: { id: 'b', state: 'failed', lastError: 'out of paper' } } });
        // Held: stored held, held by the hold rule (setHeld), put back held, moved held; released: no event.
        await store.printJobs.submit({ ...job('c'), heldReason: 'wrong-stock' }, longAgo);
        await store.printJobs.submit(job('d'), longAgo);
        expect(await store.printJobs.setHeld('file:///tmp/x', 'brother-ql-62x29', 'offline')).toBe(2);
        expect(await store.printJobs.setHeld('file:///tmp/x', 'brother-ql-62x29', null)).toBe(2);
        await store.printJobs.requeueFailed('b', 'offline');
        const held = (await types()).slice(2);
        expect(held.every(([t, k]) => t === 'print_job.held' && k === 'print_job')).toBe(true);
        expect(held.map((x) => x[2])).toEqual(['c', ...[held[1]![2], held[2]![2]].sort(), 'b']);
        expect([held[1]![2], held[2]![2]].sort()).toEqual(['c', 'd']);
        const last = (await store.events.after(0, 100)).at(-1)!;
        expect(last.data).toMatchObject({ job: { id: 'b', state: 'queued', heldReason: 'offline' } });
      });

      it('only the lease owner records the outcome', async () => {
        await store.printJobs.submit(job('a'), longAgo);
        await store.printJobs.claim('w1', 60_000);
        expect(await store.printJobs.markPrinted('a', 'intruder')).toBe(false);
        expect(await store.printJobs.markPrinted('a', 'w1')).toBe(true);
        const done = await store.printJobs.get('a');
        expect(done?.state).toBe('printed');
        expect(done?.printedAt).not.toBeNull();
        expect(await store.printJobs.markFailed('a', 'w1', 'late')).toBe(false); // printed stays printed
        expect(await store.printJobs.claim('w2', 60_000)).toBeUndefined();
      });

      it('an expired lease makes the job claimable again, with the attempt counted', async () => {
        await store.printJobs.submit(job('a'), longAgo);
        await store.printJobs.claim('dead-worker', 1);
        await new Promise((r) => setTimeout(r, 10));
        const again = await store.printJobs.claim('w2', 60_000);
        expect(again).toMatchObject({ id: 'a', attempts: 2 });
        expect(await store.printJobs.markPrinted('a', 'dead-worker')).toBe(false);
        expect(await store.printJobs.markPrinted('a', 'w2')).toBe(true);
      });

      it('retry waits for its due time; failure is final and keeps the error', async () => {
        await store.printJobs.submit(job('a'), longAgo);
        await store.printJobs.claim('w1', 60_000);
        const due = new Date(Date.now() + 60_000).toISOString();
        expect(await store.printJobs.markRetry('a', 'w1', 'printer offline', due)).toBe(true);
        expect(await store.printJobs.get('a')).toMatchObject({ state: 'queued', lastError: 'printer offline', nextAttemptAt: due });
        expect(await store.printJobs.claim('w1', 60_000)).toBeUndefined();
        expect(await store.printJobs.nextWakeAt()).toBe(due);

        await store.printJobs.submit(job('b'), longAgo);
        await store.printJobs.claim('w1', 60_000);
        expect(await store.printJobs.markFailed('b', 'w1', 'x'.repeat(5000))).toBe(true);
        const failed = await store.printJobs.get('b');
        expect(failed?.state).toBe('failed');
        expect(failed?.lastError?.length).toBeLessThanOrEqual(1000);
      });

      it('several instances claiming at once each get different jobs', async () => {
        for (let i = 0; i < 12; i++) await store.printJobs.submit(job(`j${String(i).padStart(2, '0')}`), longAgo);
        const instances = [store, await h.reopen(), await h.reopen()];
        const claimed = await Promise.all(
          instances.map(async (s, n) => {
            const ids: string[] = [];
            for (let c = await s.printJobs.claim(`w${n}`, 60_000); c; c = await s.printJobs.claim(`w${n}`, 60_000)) ids.push(c.id);
            return ids;
          }),
        );
        const all = claimed.flat().sort();
        expect(all).toEqual(Array.from({ length: 12 }, (_, i) => `j${String(i).padStart(2, '0')}`));
      });

      it('a job taken over from an expired lease is in doubt; the marks of an attempt stick as documented', async () => {
        await store.printJobs.submit(job('a'), longAgo);
        expect(await store.printJobs.claim('w1', 60_000)).toMatchObject({ inDoubt: false, possibleDuplicate: false });
        expect(await store.printJobs.markRetry('a', 'w1', 'connect ECONNREFUSED', longAgo)).toBe(true);
        expect(await store.printJobs.get('a')).toMatchObject({ inDoubt: false });
        // The next worker dies mid-delivery: whoever takes over finds the job in doubt.
        await store.printJobs.claim('dies', 1);
        await new Promise((r) => setTimeout(r, 10));
        expect(await store.printJobs.claim('w2', 60_000)).toMatchObject({ id: 'a', attempts: 3, inDoubt: true });
        // Marks: in doubt is set as given (unchanged when not given); a possible duplicate is never cleared.
        expect(await store.printJobs.markRetry('a', 'w2', 'timed out', longAgo, { inDoubt: true, possibleDuplicate: true })).toBe(true);
        expect(await store.printJobs.get('a')).toMatchObject({ inDoubt: true, possibleDuplicate: true });
        await store.printJobs.claim('w3', 60_000);
        expect(await store.printJobs.markRetry('a', 'w3', 'busy', longAgo, { possibleDuplicate: false })).toBe(true);
        expect(await store.printJobs.get('a')).toMatchObject({ inDoubt: true, possibleDuplicate: true });
        await store.printJobs.claim('w4', 60_000);
        expect(await store.printJobs.markPrinted('a', 'w4')).toBe(true);
        expect(await store.printJobs.get('a')).toMatchObject({ state: 'printed', inDoubt: false, possibleDuplicate: true });
      });

      it('an attempt that sent nothing (the printer not reached from this instance) is given back', async () => {
        await store.printJobs.submit(job('a'), longAgo);
        expect(await store.printJobs.claim('w1', 60_000)).toMatchObject({ attempts: 1 });
        expect(await store.printJobs.markRetry('a', 'w1', 'connect ECONNREFUSED', longAgo, { notSent: true })).toBe(true);
        expect(await store.printJobs.get('a')).toMatchObject({ state: 'queued', attempts: 0, lastError: 'connect ECONNREFUSED' });
        expect(await store.printJobs.claim('w2', 60_000)).toMatchObject({ attempts: 1 });
        expect(await store.printJobs.markRetry('a', 'w2', 'connect ECONNREFUSED', longAgo)).toBe(true);
        expect(await store.printJobs.get('a')).toMatchObject({ attempts: 1 });
      });

      it('a printed job keeps its record but not its document; a failed one keeps both, to be retried', async () => {
        await store.printJobs.submit(job('a'), longAgo);
        await store.printJobs.submit(job('b'), longAgo);
        await store.printJobs.submit(job('c'), longAgo);
        await store.printJobs.claim('w', 60_000);
        await store.printJobs.markPrinted('a', 'w', { possibleDuplicate: true });
        await store.printJobs.claim('w', 60_000);
        await store.printJobs.markFailed('b', 'w', 'format not supported', { inDoubt: false });
        const sizes = await h.query("SELECT id, length(png) AS n FROM print_jobs ORDER BY id");
        expect(sizes.map((r) => [r.id, Number(r.n)])).toEqual([['a', 0], ['b', job('b').png.length], ['c', job('c').png.length]]);
        expect(await store.printJobs.get('a')).toMatchObject({ state: 'printed', possibleDuplicate: true });
        expect(await store.printJobs.get('b')).toMatchObject({ state: 'failed', lastError: 'format not supported' });
      });

      describe('listing (listPrintJobs)', () => {
        /** Jobs a..e of tok1 a millisecond apart (newest last), one of tok2, and two of a batch of tok1. */
        const seed = async () => {
          for (const id of ['a', 'b', 'c', 'd', 'e']) {
            await store.printJobs.submit(job(id), longAgo);
            await new Promise((r) => setTimeout(r, 2));
          }
          await store.printJobs.submit(job('other', null, 'tok2'), longAgo);
          await store.printJobs.submitBatch({ id: 'b1', tokenId: 'tok1', idempotencyKey: null, requestHash: 'h', printer: 'file:///tmp/x', template: 'brother-ql-62x29' }, [job('b1-0'), job('b1-1')], longAgo);
        };
        const all = async (query: Omit<PrintJobQuery, 'after'>) => {
          const ids: string[] = [];
          let after: PrintJobQuery['after'];
          for (let pages = 0; pages < 20; pages++) {
            const page = await store.printJobs.list({ ...query, after });
            expect(page.jobs.length).toBeLessThanOrEqual(query.limit);
            ids.push(...page.jobs.map((j) => j.id));
            if (!page.next) return ids;
            after = page.next;
          }
          throw new Error('too many pages');
        };

        it("pages through one token's jobs newest first, never another token's", async () => {
          await seed();
          const first = await store.printJobs.list({ tokenId: 'tok1', limit: 3 });
          expect(first.jobs.map((j) => j.id)).toEqual(['b1-1', 'b1-0', 'e']);
          expect(first.next).toEqual({ createdAt: first.jobs[2]!.createdAt, id: 'e' });
          expect(await all({ tokenId: 'tok1', limit: 3 })).toEqual(['b1-1', 'b1-0', 'e', 'd', 'c', 'b', 'a']);
          expect(await all({ tokenId: 'tok1', limit: 7 })).toEqual(['b1-1', 'b1-0', 'e', 'd', 'c', 'b', 'a']);
          expect(await all({ tokenId: 'tok2', limit: 50 })).toEqual(['other']);
          expect(await all({ tokenId: 'nobody', limit: 50 })).toEqual([]);
        });

        it('filters by state and by batch, and jobs with the same creation time page by id', async () => {
          await seed();
          for (const id of ['a', 'b']) {
            expect((await store.printJobs.claim('w', 60_000))?.id).toBe(id);
            await store.printJobs.markFailed(id, 'w', 'jammed');
          }
          expect(await all({ tokenId: 'tok1', state: 'failed', limit: 1 })).toEqual(['b', 'a']);
          expect(await all({ tokenId: 'tok1', state: 'queued', limit: 2 })).toEqual(['b1-1', 'b1-0', 'e', 'd', 'c']);
          expect(await all({ tokenId: 'tok1', batchId: 'b1', limit: 1 })).toEqual(['b1-1', 'b1-0']);
          expect(await all({ tokenId: 'tok2', batchId: 'b1', limit: 10 })).toEqual([]);
          // Same created_at (a batch's jobs are a millisecond apart; equal ones break the tie by id).
          await h.query("UPDATE print_jobs SET created_at = '2099-01-01T00:00:00.000Z' WHERE id IN ('c', 'd', 'e')");
          expect(await all({ tokenId: 'tok1', limit: 1 })).toEqual(['e', 'd', 'c', 'b1-1', 'b1-0', 'b', 'a']);
        });
      });

      describe('retrying (requeueFailed)', () => {
        it('puts a failed job back held, when its printer cannot print it now: never claimed until released', async () => {
          await store.printJobs.submit(job('h'), longAgo);
          await store.printJobs.claim('w', 60_000);
          await store.printJobs.markFailed('h', 'w', 'connect ECONNREFUSED');
          const requeued = await store.printJobs.requeueFailed('h', 'The printer is not answering.');
          expect(requeued).toMatchObject({ id: 'h', state: 'queued', heldReason: 'The printer is not answering.' });
          expect(await store.printJobs.claim('w', 60_000)).toBeUndefined();
        });

        it('puts a failed job back in the queue with its document: attempts from 0, due now, last error kept', async () => {
          await store.printJobs.submit(job('a'), longAgo);
          await store.printJobs.claim('w', 60_000);
          await store.printJobs.markFailed('a', 'w', 'connect ECONNREFUSED', { inDoubt: true });
          const before = Date.now();
          const requeued = await store.printJobs.requeueFailed('a', null);
          expect(requeued).toMatchObject({ id: 'a', state: 'queued', attempts: 0, maxAttempts: 3, lastError: 'connect ECONNREFUSED', inDoubt: true, printedAt: null });
          expect(Date.parse(requeued!.retriedAt!)).toBeGreaterThanOrEqual(before - 1000);
          expect(Date.parse(requeued!.nextAttemptAt)).toBeLessThanOrEqual(Date.now() + 1000);
          expect(await store.printJobs.get('a')).toEqual(requeued);
          expect(await store.printJobs.pendingCounts()).toEqual({ queued: 1, printing: 0 });
          // The worker gets the same label again, and the error stays until it prints.
          const claimed = await store.printJobs.claim('w2', 60_000);
          expect(claimed).toMatchObject({ id: 'a', attempts: 1, inDoubt: true });
          expect(claimed!.png.equals(job('a').png)).toBe(true);
          expect(await store.printJobs.markPrinted('a', 'w2')).toBe(true);
          expect(await store.printJobs.get('a')).toMatchObject({ state: 'printed', attempts: 1, retriedAt: requeued!.retriedAt });
        });

        it('changes nothing for a job that is not failed, has lost its document, or does not exist', async () => {
          await store.printJobs.submit(job('q'), longAgo);
          await store.printJobs.submit(job('p'), longAgo);
          await store.printJobs.submit(job('old'), longAgo);
          expect(await store.printJobs.requeueFailed('q', null)).toBeUndefined(); // queued
          await store.printJobs.claim('w', 60_000);
          expect(await store.printJobs.requeueFailed('q', null)).toBeUndefined(); // printing
          await store.printJobs.markPrinted('q', 'w');
          expect(await store.printJobs.requeueFailed('q', null)).toBeUndefined(); // printed
          // A job that failed before failed jobs kept their document (1.3 and older).
          await store.printJobs.claim('w', 60_000);
          await store.printJobs.markFailed('p', 'w', 'x');
          await h.query("UPDATE print_jobs SET png = substr(png, 1, 0) WHERE id = 'p'"); // an empty document, in either dialect
          expect(await store.printJobs.requeueFailed('p', null)).toBeUndefined();
          expect(await store.printJobs.get('p')).toMatchObject({ state: 'failed', retriedAt: null });
          expect(await store.printJobs.requeueFailed('nope', null)).toBeUndefined();
          expect(await store.printJobs.get('old')).toMatchObject({ state: 'queued', retriedAt: null });
        });

        it('two retries at once from two instances: one puts it back, the other changes nothing', async () => {
          await store.printJobs.submit(job('a'), longAgo);
          await store.printJobs.claim('w', 60_000);
          await store.printJobs.markFailed('a', 'w', 'jammed');
          const other = await h.reopen();
          const results = await Promise.all([store.printJobs.requeueFailed('a', null), other.printJobs.requeueFailed('a', null)]);
          expect(results.filter(Boolean)).toHaveLength(1);
          expect(await store.printJobs.get('a')).toMatchObject({ state: 'queued', attempts: 0 });
        });
      });

      describe('cancelling (cancelQueued)', () => {
        it('finishes a queued job, new or waiting to retry, without its document: never claimed, retried or counted as pending again', async () => {
          await store.printJobs.submit(job('new'), longAgo);
          await store.printJobs.submit(job('waits'), longAgo);
          await store.printJobs.submit(job('other'), longAgo);
          expect((await store.printJobs.claim('w', 60_000))?.id).toBe('new');
          await store.printJobs.markRetry('new', 'w', 'connect ECONNREFUSED', new Date(Date.now() + 60_000).toISOString());
          const before = Date.now();
          const cancelled = await store.printJobs.cancelQueued('new', 'tok1');
          expect(cancelled).toMatchObject({ id: 'new', state: 'failed', attempts: 1, lastError: 'connect ECONNREFUSED', printedAt: null });
          expect(Date.parse(cancelled!.cancelledAt!)).toBeGreaterThanOrEqual(before - 1000);
          expect(await store.printJobs.get('new')).toEqual(cancelled);
          expect(await store.printJobs.cancelQueued('waits', 'tok1')).toMatchObject({ id: 'waits', state: 'failed', attempts: 0 });
          const sizes = await h.query("SELECT id, length(png) AS n FROM print_jobs ORDER BY id");
          expect(sizes.map((r) => [r.id, Number(r.n)])).toEqual([['new', 0], ['other', job('other').png.length], ['waits', 0]]);
          // The worker gets the other job only; a retry of a cancelled job changes nothing.
          expect((await store.printJobs.claim('w', 60_000))?.id).toBe('other');
          expect(await store.printJobs.claim('w', 60_000)).toBeUndefined();
          expect(await store.printJobs.requeueFailed('new', null)).toBeUndefined();
          expect(await store.printJobs.pendingCounts()).toEqual({ queued: 0, printing: 1 });
          // Cancelled jobs are finished: purged with the rest after the retention period.
          expect(await store.printJobs.purgeFinished(new Date(Date.now() + 1000).toISOString(), 10)).toBe(2);
          expect(await store.printJobs.get('new')).toBeUndefined();
        });

        it('changes nothing for a job being sent, printed, failed, already cancelled, of another token, or missing', async () => {
          for (const id of ['p', 'd', 'f', 'c']) await store.printJobs.submit(job(id), longAgo);
          await store.printJobs.claim('w', 60_000); // p: printing
          expect(await store.printJobs.cancelQueued('p', 'tok1')).toBeUndefined();
          await store.printJobs.claim('w', 60_000);
          await store.printJobs.markPrinted('d', 'w');
          expect(await store.printJobs.cancelQueued('d', 'tok1')).toBeUndefined();
          await store.printJobs.claim('w', 60_000);
          await store.printJobs.markFailed('f', 'w', 'jammed');
          expect(await store.printJobs.cancelQueued('f', 'tok1')).toBeUndefined();
          expect(await store.printJobs.cancelQueued('c', 'tok2')).toBeUndefined(); // not this token's
          expect(await store.printJobs.cancelQueued('c', 'tok1')).toBeDefined();
          expect(await store.printJobs.cancelQueued('c', 'tok1')).toBeUndefined(); // already
          expect(await store.printJobs.cancelQueued('nope', 'tok1')).toBeUndefined();
          expect((await store.printJobs.get('p'))).toMatchObject({ state: 'printing', cancelledAt: null });
          // The worker that holds it records its outcome as usual.
          expect(await store.printJobs.markPrinted('p', 'w')).toBe(true);
          const states = await h.query('SELECT id, state, cancelled_at FROM print_jobs ORDER BY id');
          expect(states.map((r) => [r.id, r.state, r.cancelled_at !== null])).toEqual([['c', 'failed', true], ['d', 'printed', false], ['f', 'failed', false], ['p', 'printed', false]]);
        });

        it("counts a batch's cancelled jobs among its failed ones", async () => {
          await store.printJobs.submitBatch({ id: 'b1', tokenId: 'tok1', idempotencyKey: null, requestHash: 'h', printer: 'file:///tmp/x', template: 'brother-ql-62x29' }, [job('b-0'), job('b-1'), job('b-2')], longAgo);
          await store.printJobs.claim('w', 60_000);
          await store.printJobs.markPrinted('b-0', 'w');
          await store.printJobs.cancelQueued('b-2', 'tok1');
          expect((await store.printJobs.getBatch('b1'))!.counts).toEqual({ queued: 1, printing: 0, printed: 1, failed: 1, cancelled: 1 });
        });

        it('a cancel racing claims from another instance: every job is either claimed or cancelled, never both', async () => {
          const ids = Array.from({ length: 30 }, (_, i) => `r${String(i).padStart(2, '0')}`);
          for (const id of ids) await store.printJobs.submit(job(id), longAgo);
          const worker = await h.reopen();
          await worker.printJobs.requeueFailed('none', null); // a write that changes nothing: its writer is up before the race
          const claimed: string[] = [];
          const claiming = (async () => {
            for (let c = await worker.printJobs.claim('w', 60_000); c; c = await worker.printJobs.claim('w', 60_000)) claimed.push(c.id);
          })();
          // Claims take the oldest first, cancels go from the newest: they meet in the middle.
          const cancelled: string[] = [];
          for (const id of [...ids].reverse()) if (await store.printJobs.cancelQueued(id, 'tok1')) cancelled.push(id);
          await claiming;
          expect(claimed.filter((id) => cancelled.includes(id))).toEqual([]);
          expect([...claimed, ...cancelled].sort()).toEqual(ids);
          for (const id of claimed) expect(await store.printJobs.get(id)).toMatchObject({ state: 'printing', cancelledAt: null });
          for (const id of cancelled) expect((await store.printJobs.get(id))?.cancelledAt).not.toBeNull();
          console.log(`${name}: a cancel racing claims: ${claimed.length} claimed, ${cancelled.length} cancelled`);
        });
      });

      it('purges finished jobs last updated before the cut-off, in batches, and nothing else', async () => {
        for (const id of ['p1', 'p2', 'p3', 'f1', 'q1', 'w1']) await store.printJobs.submit(job(id), longAgo);
        for (const id of ['p1', 'p2', 'p3']) {
          expect((await store.printJobs.claim('w', 60_000))?.id).toBe(id);
          await store.printJobs.markPrinted(id, 'w');
        }
        expect((await store.printJobs.claim('w', 60_000))?.id).toBe('f1');
        await store.printJobs.markFailed('f1', 'w', 'gave up');
        expect((await store.printJobs.claim('w', 60_000))?.id).toBe('q1');
        await store.printJobs.markRetry('q1', 'w', 'offline', new Date(Date.now() + 60_000).toISOString());
        expect((await store.printJobs.claim('w', 60_000))?.id).toBe('w1'); // still printing
        // Nothing finished before a time long past.
        expect(await store.printJobs.purgeFinished(longAgo, 100)).toBe(0);
        const cutoff = new Date(Date.now() + 1000).toISOString();
        expect(await store.printJobs.purgeFinished(cutoff, 3)).toBe(3);
        expect(await store.printJobs.purgeFinished(cutoff, 3)).toBe(1);
        expect(await store.printJobs.purgeFinished(cutoff, 3)).toBe(0);
        const left = await h.query('SELECT id, state FROM print_jobs ORDER BY id');
        expect(left.map((r) => [r.id, r.state])).toEqual([['q1', 'queued'], ['w1', 'printing']]);
        expect(await store.printJobs.get('p1')).toBeUndefined();
      });

      it('tidying can run at any time, from several instances at once, and changes nothing visible', async () => {
        await store.printJobs.submit(job('a'), longAgo);
        await store.printJobs.submit(job('b'), longAgo);
        await store.printJobs.claim('w', 60_000);
        await store.printJobs.markPrinted('a', 'w');
        const other = await h.reopen();
        await Promise.all([store.printJobs.tidy({ analyze: true }), other.printJobs.tidy({ analyze: false }), store.printJobs.tidy({ analyze: false })]);
        expect(await store.printJobs.get('a')).toMatchObject({ state: 'printed' });
        expect((await store.printJobs.claim('w', 60_000))?.id).toBe('b');
      });

      it('survives reopening the database (a restart)', async () => {
        await store.printJobs.submit(job('a'), longAgo);
        const reopened = await h.reopen();
        expect((await reopened.printJobs.claim('w1', 60_000))?.id).toBe('a');
      });
    });

    describe('printed labels and stale records (migration 20)', () => {
      const longAgo = '2000-01-01T00:00:00.000Z';
      /** A job of the record's label as the label service stores it: what it shows, read at the current revision. */
      const labelJob = async (id: string, record: { kind: 'location' | 'item'; id: string }, template = 'brother-ql-62x29', templateVersion = ''): Promise<NewPrintJob> => ({
        id, printer: 'folder', template: 'brother-ql-62x29', title: `label ${id}`, fields: { kind: record.kind, id: record.id },
        tokenId: 'tok1', idempotencyKey: null, maxAttempts: 3, png: Buffer.from([1, 2, 3]),
        label: { ...record, fingerprint: `fp-${id}`, template, templateVersion, revision: await revision() },
      });
      const revision = async () => Number((await h.query('SELECT revision FROM records_revision'))[0]!.revision);
      const print = async (job: NewPrintJob) => {
        await store.printJobs.submit(job, longAgo);
        const claimed = await store.printJobs.claim('w', 60_000);
        expect(claimed?.id).toBe(job.id);
        expect(await store.printJobs.markPrinted(job.id, 'w')).toBe(true);
      };
      const ids = async (labels: 'stale' | 'neverPrinted') => (await store.search.find({ labels, limit: 200 })).records.map((r) => `${r.kind}/${r.id}`).sort();
      /** One page of the label-staleness consumer that finds every label it reads would look different (announces them all). */
      const announceStale = async (lease: ConsumerLease, leaseMs: number, limit: number) => {
        const page = await store.events.unannouncedStale(limit);
        const done = page.length < limit;
        const { held, announced } = await store.events.settleStale(lease, leaseMs, { current: [], stale: page }, done);
        return { held, done: held && done, announced };
      };

      beforeEach(async () => {
        await store.records.upsertMany([loc('hall', 'Hall'), loc('shelf', 'Shelf', 'hall'), item('drill', 'Drill', 1, 'shelf'), item('saw', 'Saw', 2, 'shelf'), item('tape', 'Tape', null)]);
      });

      it('remembers a label when its job prints, not when it is queued', async () => {
        const job = await labelJob('j1', { kind: 'item', id: 'drill' });
        await store.printJobs.submit(job, longAgo);
        expect(await store.printJobs.printedLabel('item', 'drill')).toBeUndefined();
        await store.printJobs.claim('w', 60_000);
        expect(await store.printJobs.printedLabel('item', 'drill')).toBeUndefined();
        await store.printJobs.markPrinted('j1', 'w');
        const printed = await store.printJobs.printedLabel('item', 'drill');
        expect(printed).toMatchObject({ kind: 'item', id: 'drill', jobId: 'j1', fingerprint: 'fp-j1', template: 'brother-ql-62x29', templateVersion: '', stock: 'brother-ql-62x29', printer: 'folder' });
        expect(printed!.printedAt).toBe((await store.printJobs.get('j1'))!.printedAt);
      });

      it('a failed job leaves no printed label; a job of no record of ours leaves none either', async () => {
        await store.printJobs.submit(await labelJob('j1', { kind: 'item', id: 'drill' }), longAgo);
        await store.printJobs.claim('w', 60_000);
        await store.printJobs.markFailed('j1', 'w', 'jammed');
        await store.printJobs.submit({ ...(await labelJob('j2', { kind: 'item', id: 'saw' })), label: null }, longAgo);
        await store.printJobs.claim('w', 60_000);
        await store.printJobs.markPrinted('j2', 'w');
        expect(await store.printJobs.printedLabel('item', 'drill')).toBeUndefined();
        expect(await store.printJobs.printedLabel('item', 'saw')).toBeUndefined();
        expect(await h.query('SELECT * FROM printed_labels')).toEqual([]);
      });

      it('neverPrinted lists records with no printed label; stale is empty until something changes', async () => {
        expect(await ids('neverPrinted')).toEqual(['item/drill', 'item/saw', 'item/tape', 'location/hall', 'location/shelf']);
        await print(await labelJob('j1', { kind: 'item', id: 'drill' }));
        await print(await labelJob('j2', { kind: 'location', id: 'shelf' }));
        expect(await ids('neverPrinted')).toEqual(['item/saw', 'item/tape', 'location/hall']);
        expect(await ids('stale')).toEqual([]);
        // Writing the same values again changes nothing a label shows.
        await store.records.upsertMany([item('drill', 'Drill', 1, 'shelf'), loc('shelf', 'Shelf', 'hall')]);
        expect(await ids('stale')).toEqual([]);
      });

      it('a record changed after its label printed is stale; a reprint takes it out', async () => {
        await print(await labelJob('j1', { kind: 'item', id: 'drill' }));
        await print(await labelJob('j2', { kind: 'item', id: 'saw' }));
        await store.records.upsertMany([item('drill', 'Cordless drill', 1, 'shelf')]);
        expect(await ids('stale')).toEqual(['item/drill']);
        await print(await labelJob('j3', { kind: 'item', id: 'drill' }));
        expect(await ids('stale')).toEqual([]);
        // Moved: another path on the label.
        await store.records.upsertMany([item('saw', 'Saw', 2, 'hall')]);
        expect(await ids('stale')).toEqual(['item/saw']);
      });

      it('a location renamed above makes every label below it stale, at any depth, without touching their rows', async () => {
        await print(await labelJob('j1', { kind: 'item', id: 'drill' }));
        await print(await labelJob('j2', { kind: 'location', id: 'shelf' }));
        await print(await labelJob('j3', { kind: 'location', id: 'hall' }));
        await print(await labelJob('j4', { kind: 'item', id: 'tape' }));
        const before = await h.query(`SELECT kind, id, content_rev FROM records WHERE kind = 'item' ORDER BY id`);
        await store.records.upsertMany([loc('hall', 'Main hall')]);
        expect(await ids('stale')).toEqual(['item/drill', 'location/hall', 'location/shelf']);
        expect(await h.query(`SELECT kind, id, content_rev FROM records WHERE kind = 'item' ORDER BY id`)).toEqual(before);
        // A label printed after the rename is current again, its neighbours still stale.
        await print(await labelJob('j5', { kind: 'location', id: 'shelf' }));
        expect(await ids('stale')).toEqual(['item/drill', 'location/hall']);
      });

      it('a saved template edited after printing makes its labels stale; other templates keep theirs', async () => {
        const tpl = (etag: string): SavedTemplate => ({ name: 'tags', design: '{}', logo: null, etag, createdAt: longAgo, updatedAt: longAgo });
        await store.templates.put(tpl('"v1"'), null);
        await print(await labelJob('j1', { kind: 'item', id: 'drill' }, 'tags', '"v1"'));
        await print(await labelJob('j2', { kind: 'item', id: 'saw' }));
        expect(await ids('stale')).toEqual([]);
        await store.templates.put(tpl('"v2"'), '"v1"');
        expect(await ids('stale')).toEqual(['item/drill']);
      });

      it('stale combines with the other filters and pages', async () => {
        for (const [i, r] of ['drill', 'saw'].entries()) await print(await labelJob(`j${i}`, { kind: 'item', id: r }));
        await print(await labelJob('j9', { kind: 'location', id: 'shelf' }));
        await store.records.upsertMany([loc('shelf', 'Top shelf', 'hall')]);
        expect((await store.search.find({ labels: 'stale', kind: 'item', limit: 200 })).records.map((r) => r.id)).toEqual(['drill', 'saw']);
        const first = await store.search.find({ labels: 'stale', limit: 1 });
        expect(first.records.map((r) => r.id)).toEqual(['drill']);
        const second = await store.search.find({ labels: 'stale', limit: 200, after: first.next });
        expect(second.records.map((r) => r.id)).toEqual(['saw', 'shelf']);
        expect((await store.search.find({ labels: 'stale', parentId: 'hall', descendants: true, kind: 'location', limit: 200 })).records.map((r) => r.id)).toEqual(['shelf']);
      });

      it('label.stale: announced once per printed label, in pages, the cursor moved with the last page (migration 23)', async () => {
        for (const [i, r] of ['drill', 'saw'].entries()) await print(await labelJob(`j${i}`, { kind: 'item', id: r }));
        await print(await labelJob('j9', { kind: 'location', id: 'shelf' }));
        await store.records.upsertMany([loc('hall', 'Main hall')]);
        const since = await store.events.latest();
        const from = (await store.consumers.acquire('label-staleness', 'me', 60_000, 'beginning'))!;
        const lease = { name: 'label-staleness', owner: 'me', from, to: since };
        expect(await announceStale(lease, 60_000, 2)).toEqual({ held: true, done: false, announced: 2 });
        expect((await store.consumers.get('label-staleness'))?.cursor).toBe(from);
        expect(await announceStale(lease, 60_000, 2)).toEqual({ held: true, done: true, announced: 1 });
        expect((await store.consumers.get('label-staleness'))?.cursor).toBe(since);
        const stale = (await store.events.after(since, 100)).filter((e) => e.type === 'label.stale');
        expect(stale.map((e) => `${e.subject.kind}/${e.subject.id}`)).toEqual(['item/drill', 'item/saw', 'location/shelf']);
        expect(stale[0]!.data).toEqual({ printed: { jobId: 'j0', template: 'brother-ql-62x29', stock: 'brother-ql-62x29', printer: 'folder', printedAt: expect.any(String) }, reasons: ['locationChanged'] });
        // Nothing left to announce; a lost lease writes nothing.
        const next = { ...lease, from: since };
        expect(await announceStale(next, 60_000, 2)).toEqual({ held: true, done: true, announced: 0 });
        expect(await announceStale({ ...next, owner: 'other' }, 60_000, 2)).toEqual({ held: false, done: false, announced: 0 });
        // Reprinted and changed again: announced again, with both reasons.
        await print(await labelJob('j10', { kind: 'item', id: 'drill' }));
        await store.records.upsertMany([item('drill', 'Cordless drill', 1, 'shelf'), loc('hall', 'Hall')]);
        expect(await announceStale(next, 60_000, 10)).toEqual({ held: true, done: true, announced: 1 });
        const again = (await store.events.after(since, 100)).filter((e) => e.type === 'label.stale').at(-1)!;
        expect(again).toMatchObject({ subject: { kind: 'item', id: 'drill' }, data: { printed: { jobId: 'j10' }, reasons: ['recordChanged', 'locationChanged'] } });
      });

      it('label.stale: a label that would look the same leaves the stale set unannounced; a change after it was compared keeps it stale', async () => {
        const tpl = (etag: string): SavedTemplate => ({ name: 'tags', design: '{}', logo: null, etag, createdAt: longAgo, updatedAt: longAgo });
        await store.templates.put(tpl('"v1"'), null);
        await print(await labelJob('j1', { kind: 'item', id: 'drill' }, 'tags', '"v1"'));
        await print(await labelJob('j2', { kind: 'item', id: 'saw' }));
        await print(await labelJob('j3', { kind: 'item', id: 'tape' }));
        const from = (await store.consumers.acquire('label-staleness', 'me', 60_000, 'beginning'))!;
        await store.templates.put(tpl('"v2"'), '"v1"');
        await store.records.upsertMany([item('saw', 'Saw 2', 2, 'shelf'), item('tape', 'Tape 2', null)]);
        const lease = { name: 'label-staleness', owner: 'me', from, to: await store.events.latest() };
        const page = await store.events.unannouncedStale(10);
        expect(page.map((l) => [l.id, l.jobId, l.fingerprint, l.reasons])).toEqual([
          ['drill', 'j1', 'fp-j1', ['templateChanged']],
          ['saw', 'j2', 'fp-j2', ['recordChanged']],
          ['tape', 'j3', 'fp-j3', ['recordChanged']],
        ]);
        const at = await revision();
        // Tape changes again after it was compared: its verdict is about an older record.
        await store.records.upsertMany([item('tape', 'Tape 3', null)]);
        const same = (l: (typeof page)[number], templateVersion: string) => ({ kind: l.kind, id: l.id, jobId: l.jobId, revision: at, templateVersion });
        const verdicts = { current: [same(page[0]!, '"v2"'), same(page[2]!, '')], stale: [page[1]!] };
        expect(await store.events.settleStale({ ...lease, owner: 'other' }, 60_000, verdicts, true)).toEqual({ held: false, announced: 0 });
        expect(await ids('stale')).toEqual(['item/drill', 'item/saw', 'item/tape']);
        expect(await store.events.settleStale(lease, 60_000, verdicts, true)).toEqual({ held: true, announced: 1 });
        expect((await store.consumers.get('label-staleness'))?.cursor).toBe(lease.to);
        // Drill (its template's edit alone) takes the new version; saw is announced; tape stays stale, unannounced.
        expect(await ids('stale')).toEqual(['item/saw', 'item/tape']);
        expect(await store.printJobs.printedLabel('item', 'drill')).toMatchObject({ jobId: 'j1', templateVersion: '"v2"' });
        expect((await store.events.after(lease.to, 100)).filter((e) => e.type === 'label.stale').map((e) => e.subject.id)).toEqual(['saw']);
        expect((await store.events.unannouncedStale(10)).map((l) => l.id)).toEqual(['tape']);
        // The same verdicts again (a repeated page) announce nothing twice and never lower a revision.
        expect(await store.events.settleStale({ ...lease, from: lease.to }, 60_000, { ...verdicts, current: [{ ...verdicts.current[0]!, revision: 0 }] }, true)).toEqual({ held: true, announced: 0 });
        expect(await ids('stale')).toEqual(['item/saw', 'item/tape']);
      });

      it('a saved template replaced or deleted appends template.changed / template.deleted in its write; a create or a refused write appends nothing', async () => {
        const tpl = (etag: string): SavedTemplate => ({ name: 'tags', design: '{}', logo: null, etag, createdAt: longAgo, updatedAt: longAgo });
        const since = await store.events.latest();
        const types = async () => (await store.events.after(since, 100)).map((e) => `${e.type} ${e.subject.kind}/${e.subject.id}`);
        await store.templates.put(tpl('"v1"'), null);
        expect(await store.templates.put(tpl('"v2"'), '"nope"')).toBe(false);
        expect(await store.templates.delete('tags', '"nope"')).toBe(false);
        expect(await types()).toEqual([]);
        await store.templates.put(tpl('"v2"'), '"v1"');
        await store.templates.delete('tags', '"v2"');
        expect(await types()).toEqual(['template.changed template/tags', 'template.deleted template/tags']);
        expect((await store.events.after(since, 100)).map((e) => e.data)).toEqual([{ template: { name: 'tags', etag: '"v2"' } }, { template: { name: 'tags' } }]);
      });

      it('label.stale: a template edited or deleted is announced (templateChanged), a deleted record\'s label once (recordDeleted)', async () => {
        const tpl = (etag: string): SavedTemplate => ({ name: 'tags', design: '{}', logo: null, etag, createdAt: longAgo, updatedAt: longAgo });
        await store.templates.put(tpl('"v1"'), null);
        await print(await labelJob('j1', { kind: 'item', id: 'drill' }, 'tags', '"v1"'));
        await print(await labelJob('j2', { kind: 'item', id: 'saw' }, 'tags', '"v1"'));
        await print(await labelJob('j3', { kind: 'item', id: 'tape' }));
        const from = (await store.consumers.acquire('label-staleness', 'me', 60_000, 'beginning'))!;
        await store.templates.put(tpl('"v2"'), '"v1"');
        let to = await store.events.latest();
        expect(await announceStale({ name: 'label-staleness', owner: 'me', from, to }, 60_000, 10)).toEqual({ held: true, done: true, announced: 2 });
        const announced = (await store.events.after(to, 100)).filter((e) => e.type === 'label.stale');
        expect(announced.map((e) => [e.subject.id, (e.data as { reasons: string[] }).reasons])).toEqual([['drill', ['templateChanged']], ['saw', ['templateChanged']]]);
        // A deleted record: its printed label is announced once, with recordDeleted alone; its stale neighbour is not again.
        const at = to;
        await deleteRecord(store, 'item', 'tape', '*');
        to = await store.events.latest();
        expect(await announceStale({ name: 'label-staleness', owner: 'me', from: at, to }, 60_000, 10)).toEqual({ held: true, done: true, announced: 1 });
        const gone = (await store.events.after(to, 100)).filter((e) => e.type === 'label.stale');
        expect(gone).toMatchObject([{ subject: { kind: 'item', id: 'tape' }, data: { printed: { jobId: 'j3' }, reasons: ['recordDeleted'] } }]);
        const last = await store.events.latest();
        expect(await announceStale({ name: 'label-staleness', owner: 'me', from: to, to: last }, 60_000, 10)).toEqual({ held: true, done: true, announced: 0 });
        expect(await ids('stale')).toEqual(['item/drill', 'item/saw']);
      });
    });

    describe('saved templates', () => {
      const saved = (name: string, etag: string, logo = false): SavedTemplate => ({
        name,
        design: JSON.stringify({ stock: 'brother-ql-62x29', etag }),
        logo: logo ? { width: 10, height: 2, rows: Buffer.from([0, 0x00, 0x3f, 0, 0xff, 0xff]) } : null,
        etag,
        createdAt: '2026-11-21T10:00:00.000Z',
        updatedAt: '2026-11-21T10:00:00.000Z',
      });

      it('creates only a free name, replaces and deletes only at the current ETag', async () => {
        expect(await store.templates.list()).toEqual([]);
        expect(await store.templates.put(saved('tags', '"a"', true), null)).toBe(true);
        expect(await store.templates.put(saved('tags', '"b"'), null)).toBe(false);
        expect(await store.templates.get('tags')).toEqual(saved('tags', '"a"', true));
        expect(await store.templates.put(saved('tags', '"c"'), '"stale"')).toBe(false);
        expect(await store.templates.put({ ...saved('tags', '"c"'), updatedAt: '2026-11-22T00:00:00.000Z' }, '"a"')).toBe(true);
        const now = await store.templates.get('tags');
        expect(now).toMatchObject({ etag: '"c"', logo: null, createdAt: '2026-11-21T10:00:00.000Z', updatedAt: '2026-11-22T00:00:00.000Z' });
        expect(await store.templates.put(saved('other', '"x"'), '"x"')).toBe(false); // nothing to replace
        expect(await store.templates.put(saved('bins', '"d"'), null)).toBe(true);
        expect((await store.templates.list()).map((t) => t.name)).toEqual(['bins', 'tags']);
        expect(await store.templates.count()).toBe(2);
        expect(await store.templates.delete('tags', '"a"')).toBe(false);
        expect(await store.templates.delete('tags', '"c"')).toBe(true);
        expect(await store.templates.get('tags')).toBeUndefined();
        // Another store on the same database sees the same.
        const other = await h.reopen();
        expect((await other.templates.list()).map((t) => t.name)).toEqual(['bins']);
      });
    });

    describe('sheet calibrations', () => {
      it('one per sheet product: saved, replaced, read back to the hundredth of a millimetre, deleted; the database refuses more than 5 mm', async () => {
        expect(await store.calibrations.get('avery-l7160')).toBeUndefined();
        await store.calibrations.put({ sheet: 'avery-l7160', offsetXMm: -0.35, offsetYMm: 1.1, updatedAt: '2026-11-21T10:00:00.000Z' });
        await store.calibrations.put({ sheet: 'avery-5160', offsetXMm: 5, offsetYMm: -5, updatedAt: '2026-11-21T10:00:00.000Z' });
        expect(await store.calibrations.get('avery-l7160')).toEqual({ sheet: 'avery-l7160', offsetXMm: -0.35, offsetYMm: 1.1, updatedAt: '2026-11-21T10:00:00.000Z' });
        await store.calibrations.put({ sheet: 'avery-l7160', offsetXMm: 0.1, offsetYMm: 0, updatedAt: '2026-11-22T00:00:00.000Z' });
        expect(await store.calibrations.get('avery-l7160')).toEqual({ sheet: 'avery-l7160', offsetXMm: 0.1, offsetYMm: 0, updatedAt: '2026-11-22T00:00:00.000Z' });
        await expect(store.calibrations.put({ sheet: 'avery-l7163', offsetXMm: 5.5, offsetYMm: 0, updatedAt: '2026-11-22T00:00:00.000Z' })).rejects.toThrow();
        expect(await store.calibrations.delete('avery-l7160')).toBe(true);
        expect(await store.calibrations.delete('avery-l7160')).toBe(false);
        expect(await store.calibrations.get('avery-l7160')).toBeUndefined();
        // Another store on the same database sees the same.
        const other = await h.reopen();
        expect(await other.calibrations.get('avery-5160')).toMatchObject({ offsetXMm: 5, offsetYMm: -5 });
        expect(await other.calibrations.get('avery-l7163')).toBeUndefined();
      });
    });

    describe('printers', () => {
      const printer = (name: string, extra: Partial<PrinterSettings> = {}): PrinterSettings => ({
        name,
        title: `Printer ${name}`,
        deviceUri: `ipp://user:secret@${name}.example.test/printers/q`,
        model: null,
        locationId: null,
        stocks: [],
        red: false,
        isDefault: false,
        source: 'api',
        ...extra,
      });
      const defaults = async (s: Store = store) => (await s.printers.list()).filter((p) => p.isDefault).map((p) => p.name);
      const longAgo = '2000-01-01T00:00:00.000Z';

      it('keeps the agent a printer is bound to (migration 16), and unbinds it', async () => {
        const bound = await store.printers.put(printer('shed-ql', { agent: 'shed' }), null);
        expect(bound).toMatchObject({ name: 'shed-ql', agent: 'shed' });
        expect((await store.printers.list()).find((p) => p.name === 'shed-ql')?.agent).toBe('shed');
        const unbound = await store.printers.put(printer('shed-ql', { agent: null }), bound!.etag);
        expect(unbound!.agent).toBeNull();
        expect(await store.printers.delete('shed-ql')).toBe('deleted');
      });

      it('round-trip every field; a create needs a free name, a replace the current ETag, and every change makes a new ETag', async () => {
        expect(await store.printers.list()).toEqual([]);
        const created = await store.printers.put(printer('workbench', { model: 'QL-820NWB', locationId: 'shelf', stocks: ['brother-ql-62x29', 'brother-ql-62'], red: true }), null);
        expect(created).toMatchObject({
          name: 'workbench',
          title: 'Printer workbench',
          deviceUri: 'ipp://user:secret@workbench.example.test/printers/q',
          model: 'QL-820NWB',
          locationId: 'shelf',
          stocks: ['brother-ql-62x29', 'brother-ql-62'],
          red: true,
          isDefault: true, // the first printer is the default
          source: 'api',
          status: null,
        });
        expect(created!.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
        expect(created!.createdAt).toBe(created!.updatedAt);
        expect(await store.printers.get('workbench')).toEqual(created);
        expect(await store.printers.put(printer('workbench'), null)).toBeUndefined(); // taken
        expect(await store.printers.put(printer('workbench'), '"stale"')).toBeUndefined();
        expect(await store.printers.put(printer('nowhere'), created!.etag)).toBeUndefined(); // nothing to replace
        expect(await store.printers.get('nowhere')).toBeUndefined();
        const replaced = await store.printers.put(printer('workbench', { title: 'Bench', source: 'config' }), created!.etag);
        expect(replaced).toMatchObject({ title: 'Bench', model: null, stocks: [], red: false, isDefault: true, source: 'config', createdAt: created!.createdAt });
        expect(replaced!.etag).not.toBe(created!.etag);
        // Unconditional (the configuration file): creates or replaces.
        const again = await store.printers.put(printer('workbench', { title: 'Bench 2' }));
        expect(again!.etag).not.toBe(replaced!.etag);
        expect((await store.printers.put(printer('shipping')))!.isDefault).toBe(false);
        expect((await store.printers.list()).map((p) => p.name)).toEqual(['shipping', 'workbench']);
        const other = await h.reopen();
        expect(await other.printers.get('workbench')).toEqual(again);
      });

      it('exactly one default whenever any printer exists: true moves it, false keeps it, a delete hands it to the oldest', async () => {
        await store.printers.put(printer('a'));
        await store.printers.put(printer('b'));
        await store.printers.put(printer('c'));
        expect(await defaults()).toEqual(['a']);
        await store.printers.put(printer('c', { isDefault: true }));
        expect(await defaults()).toEqual(['c']);
        await store.printers.put(printer('c', { isDefault: false })); // false does not take it away
        expect(await defaults()).toEqual(['c']);
        // A condition that fails moves nothing.
        expect(await store.printers.put(printer('b', { isDefault: true }), '"stale"')).toBeUndefined();
        expect(await defaults()).toEqual(['c']);
        expect(await store.printers.delete('c')).toBe('deleted');
        expect(await defaults()).toEqual(['a']);
        // The database itself refuses a second default.
        await expect(h.query(`UPDATE printers SET is_default = 1 WHERE name = 'b'`)).rejects.toThrow(/unique/i);
        expect(await defaults()).toEqual(['a']);
      });

      it('two instances moving the default at once leave exactly one', async () => {
        for (const name of ['p1', 'p2', 'p3', 'p4', 'p5', 'p6']) await store.printers.put(printer(name));
        const other = await h.reopen();
        await Promise.all(['p2', 'p3', 'p4', 'p5', 'p6'].map((name, i) => (i % 2 ? store : other).printers.put(printer(name, { isDefault: true }))));
        expect(await defaults()).toHaveLength(1);
        expect(await defaults(other)).toEqual(await defaults());
      });

      it('deletes at the ETag, never a printer jobs wait for; `default` also owns jobs that name no known printer', async () => {
        const a = (await store.printers.put(printer('a')))!;
        await store.printers.put(printer('default'));
        expect(await store.printers.delete('a', '"stale"')).toBe('changed');
        expect(await store.printers.delete('nope')).toBe('missing');
        const job = (id: string, printerName: string): NewPrintJob => ({ id, printer: printerName, template: 'brother-ql-62x29', title: id, fields: {}, tokenId: 't', idempotencyKey: null, maxAttempts: 3, png: Buffer.from('x') });
        await store.printJobs.submit(job('j1', 'a'), longAgo);
        await store.printJobs.submit(job('j2', 'folder'), longAgo); // stored before the fleet, under PRINTER_NAME's name
        expect(await store.printers.pendingJobs('a')).toBe(1);
        expect(await store.printers.pendingJobs('default')).toBe(1);
        expect(await store.printers.delete('a', a.etag)).toBe('has-jobs');
        expect(await store.printers.delete('default')).toBe('has-jobs');
        expect(await store.printers.get('a')).toBeDefined();
        // Finished jobs do not hold it.
        await store.printJobs.cancelQueued('j1', 't');
        expect(await store.printers.pendingJobs('a')).toBe(0);
        expect(await store.printers.delete('a', a.etag)).toBe('deleted');
        expect(await store.printers.get('a')).toBeUndefined();
        expect(await store.printers.delete('a')).toBe('missing');
      });

      it("keeps each printer's newest status reading, shared by instances, apart from its ETag, and drops it with the printer", async () => {
        const saved = (await store.printers.put(printer('zebra')))!;
        const reading = { state: 'attention', reasons: ['media-empty'], message: 'Out of labels.', media: null, checkedAt: '2026-11-28T10:00:01.000Z' };
        expect(await store.printers.saveStatus('zebra', reading)).toBe(true);
        expect(await store.printers.saveStatus('nobody', reading)).toBe(false);
        const other = await h.reopen();
        expect((await other.printers.get('zebra'))!.status).toEqual(reading);
        expect((await other.printers.get('zebra'))!.etag).toBe(saved.etag);
        // An older reading (another instance's, late) does not replace a newer one.
        expect(await other.printers.saveStatus('zebra', { ...reading, state: 'ready', reasons: [], checkedAt: '2026-11-28T10:00:00.000Z' })).toBe(false);
        expect((await store.printers.list())[0]!.status).toEqual(reading);
        const newer = { ...reading, state: 'ready', reasons: [], message: 'Ready.', checkedAt: '2026-11-28T10:00:02.000Z' };
        expect(await other.printers.saveStatus('zebra', newer)).toBe(true);
        expect((await store.printers.get('zebra'))!.status).toEqual(newer);
        // A settings change keeps the reading.
        expect((await store.printers.put(printer('zebra', { title: 'Shipping' })))!.status).toEqual(newer);
        expect(await store.printers.delete('zebra')).toBe('deleted');
        expect(await h.query('SELECT name FROM printer_status')).toEqual([]);
        await store.printers.put(printer('zebra'));
        expect((await store.printers.get('zebra'))!.status).toBeNull();
      });

      it('gives a printer to one status reader per half interval: of two instances asking at once, one; a fresh reading is not taken', async () => {
        await store.printers.put(printer('ql'));
        const other = await h.reopen();
        const at = '2026-11-28T10:00:30.000Z';
        const stale = '2026-11-28T10:00:15.000Z';
        const both = await Promise.all([store.printers.claimStatusRead('ql', at, stale), other.printers.claimStatusRead('ql', at, stale)]);
        expect(both.filter(Boolean)).toHaveLength(1);
        // Taken but not read yet: no reading shows.
        expect((await store.printers.get('ql'))!.status).toBeNull();
        expect(await store.printers.claimStatusRead('ql', '2026-11-28T10:00:40.000Z', '2026-11-28T10:00:25.000Z')).toBe(false);
        expect(await store.printers.claimStatusRead('nobody', at, stale)).toBe(false);
        // The reader's reading is kept; half an interval later the printer can be taken again.
        const reading = { state: 'ready', reasons: [], message: 'Ready.', media: null, checkedAt: '2026-11-28T10:00:31.000Z' };
        expect(await other.printers.saveStatus('ql', reading)).toBe(true);
        expect((await store.printers.get('ql'))!.status).toEqual(reading);
        expect(await store.printers.claimStatusRead('ql', '2026-11-28T10:01:00.000Z', '2026-11-28T10:00:45.000Z')).toBe(true);
        expect((await store.printers.get('ql'))!.status).toEqual(reading);
      });

      it('keeps which instance reaches a printer: counted per printer, aged out, dropped with a URI change or the printer', async () => {
        const saved = (await store.printers.put(printer('zebra')))!;
        const uri = saved.deviceUri;
        expect((await store.printers.get('zebra'))!.reach).toBeUndefined(); // never probed: unknown
        const other = await h.reopen();
        expect(await store.printers.saveReach('zebra', uri, 'site-a', false, '2026-11-28T10:00:00.000Z', '2026-11-28T09:59:00.000Z')).toBe(0);
        expect(await other.printers.saveReach('zebra', uri, 'site-b', true, '2026-11-28T10:00:01.000Z', '2026-11-28T09:59:01.000Z')).toBe(1);
        expect((await store.printers.get('zebra'))!.reach).toEqual({ probed: 2, reaching: 1 });
        expect((await store.printers.list()).find((p) => p.name === 'zebra')!.reach).toEqual({ probed: 2, reaching: 1 });
        // Again from site-a: its row is replaced, not added.
        expect(await store.printers.saveReach('zebra', uri, 'site-a', true, '2026-11-28T10:00:30.000Z', '2026-11-28T09:59:30.000Z')).toBe(2);
        // Site-b stops reporting: three intervals later its row is gone.
        expect(await store.printers.saveReach('zebra', uri, 'site-a', false, '2026-11-28T10:02:00.000Z', '2026-11-28T10:01:00.000Z')).toBe(0);
        expect((await store.printers.get('zebra'))!.reach).toEqual({ probed: 1, reaching: 0 });
        // A probe of another URI (raced a change), or of no printer, stores nothing.
        expect(await store.printers.saveReach('zebra', 'socket://elsewhere:9100?lang=zpl', 'site-a', true, '2026-11-28T10:02:01.000Z', '2026-11-28T10:01:01.000Z')).toBeUndefined();
        expect(await store.printers.saveReach('nobody', uri, 'site-a', true, '2026-11-28T10:02:01.000Z', '2026-11-28T10:01:01.000Z')).toBeUndefined();
        // Settings without a new URI keep the rows; a new URI drops them (every instance probes it afresh).
        await store.printers.put(printer('zebra', { title: 'Zebra' }));
        expect((await store.printers.get('zebra'))!.reach).toEqual({ probed: 1, reaching: 0 });
        await store.printers.put(printer('zebra', { deviceUri: 'socket://zebra-2:9100?lang=zpl' }));
        expect((await store.printers.get('zebra'))!.reach).toBeUndefined();
        expect(await store.printers.saveReach('zebra', 'socket://zebra-2:9100?lang=zpl', 'site-a', true, '2026-11-28T10:03:00.000Z', '2026-11-28T10:02:00.000Z')).toBe(1);
        expect(await store.printers.delete('zebra')).toBe('deleted');
        expect(await h.query('SELECT name FROM printer_reach')).toEqual([]);
      });
    });

    describe('custom fields (migration 19)', () => {
      const catalogue = parseCatalogue([
        { name: 'best_before', title: 'Best before', type: 'date' },
        { name: 'quantity', title: 'Quantity', type: 'number', min: 0 },
        { name: 'serial', title: 'Serial', type: 'text', maxLength: 20 },
        { name: 'manual', title: 'Manual', type: 'url' },
      ]);
      const withFields = (id: string, fields: RecordInput['fields']): RecordInput => ({ ...item(id, `Item ${id}`, null), fields });

      it('round-trips field values through upsertMany, getWithPath and the search; a record without any has none', async () => {
        await store.records.upsertMany([loc('pantry', 'Pantry'), { ...withFields('milk', { best_before: '2026-12-01', quantity: 2.5, serial: 'Ünï 7' }), parentId: 'pantry' }, item('plain', 'Plain', null)]);
        expect((await store.records.getItem('milk'))!.fields).toEqual({ best_before: '2026-12-01', quantity: 2.5, serial: 'Ünï 7' });
        expect((await store.records.getItem('plain'))!.fields).toBeUndefined();
        const placed = await store.records.getWithPath({ kind: 'item', id: 'milk' });
        expect(placed).toMatchObject({ record: { fields: { best_before: '2026-12-01', quantity: 2.5 } }, path: ['Pantry'] });
        const page = await store.search.find({ kind: 'item', limit: 10 });
        expect(page.records.find((r) => r.id === 'milk')!.fields).toEqual({ best_before: '2026-12-01', quantity: 2.5, serial: 'Ünï 7' });
        // Replacing the record replaces its values; none clears them.
        await store.records.upsertMany([withFields('milk', { quantity: 3 })]);
        expect((await store.records.getItem('milk'))!.fields).toEqual({ quantity: 3 });
        await store.records.upsertMany([withFields('milk', undefined)]);
        expect((await store.records.getItem('milk'))!.fields).toBeUndefined();
      });

      it('imports values from CSV field.NAME columns and JSON fields, checked by the catalogue; an unchanged re-import writes nothing', async () => {
        const csv = 'kind,id,name,field.best_before,field.quantity\nitem,milk,Milk,2026-12-01,2\nitem,rice,Rice,,10\n';
        expect(await importRecords(store, csv, 'csv', { fields: catalogue })).toMatchObject({ imported: 2, written: 2, errors: [] });
        expect((await store.records.getItem('milk'))!.fields).toEqual({ best_before: '2026-12-01', quantity: 2 });
        expect((await store.records.getItem('rice'))!.fields).toEqual({ quantity: 10 });
        expect(await importRecords(store, csv, 'csv', { fields: catalogue })).toMatchObject({ imported: 2, written: 0 });
        // A changed value is a change: the record is written again.
        const json = JSON.stringify([{ kind: 'item', id: 'milk', name: 'Milk', fields: { best_before: '2026-12-02', quantity: 2 } }, { kind: 'item', id: 'rice', name: 'Rice', fields: { quantity: 10 } }]);
        expect(await importRecords(store, json, 'json', { fields: catalogue })).toMatchObject({ imported: 2, written: 1 });
        expect((await store.records.getItem('milk'))!.fields).toEqual({ best_before: '2026-12-02', quantity: 2 });
        // Wrong types, bounds, unknown fields: per-row problems, nothing written.
        const bad = 'kind,id,name,field.best_before,field.quantity,field.nope\nitem,a,A,2026-02-30,1,\nitem,b,B,,-1,\nitem,c,C,,,x\n';
        const result = await importRecords(store, bad, 'csv', { fields: catalogue });
        expect(result.imported).toBe(0);
        expect(result.errors).toEqual([
          'row 2: field best_before: \'2026-02-30\' is not an ISO date (YYYY-MM-DD)',
          'row 3: field quantity: -1 is less than 0',
          expect.stringContaining('row 4: unknown field nope'),
        ]);
        expect(await store.records.getItem('a')).toBeUndefined();
      });

      it('finds records by one field: a date range, a number range, one value; records without the value are never found', async () => {
        await store.records.upsertMany([
          withFields('a', { best_before: '2026-11-30', quantity: 9, serial: 'S-1' }),
          withFields('b', { best_before: '2026-12-01', quantity: 10 }),
          withFields('c', { best_before: '2027-01-15', quantity: 100, serial: 'S-2' }),
          item('d', 'Item d', null),
          // Text that looks like a number stays text: a number filter never matches it.
          withFields('e', { serial: '10' }),
        ]);
        const ids = async (field: NonNullable<Parameters<Store['search']['find']>[0]['field']>) => (await store.search.find({ field, limit: 50 })).records.map((r) => r.id);
        expect(await ids({ name: 'best_before', numeric: false, to: '2026-12-01' })).toEqual(['a', 'b']);
        expect(await ids({ name: 'best_before', numeric: false, from: '2026-12-01', to: '2026-12-31' })).toEqual(['b']);
        // Numbers compare as numbers (9 < 10 < 100), not as text.
        expect(await ids({ name: 'quantity', numeric: true, from: 9.5 })).toEqual(['b', 'c']);
        expect(await ids({ name: 'quantity', numeric: true, value: 10 })).toEqual(['b']);
        expect(await ids({ name: 'serial', numeric: false, value: 'S-2' })).toEqual(['c']);
        expect(await ids({ name: 'serial', numeric: true, value: 10 })).toEqual([]);
        // Pages through a filtered search in order.
        const first = await store.search.find({ field: { name: 'quantity', numeric: true, from: 0 }, limit: 2 });
        expect(first.records.map((r) => r.id)).toEqual(['a', 'b']);
        const second = await store.search.find({ field: { name: 'quantity', numeric: true, from: 0 }, limit: 2, after: first.next });
        expect(second.records.map((r) => r.id)).toEqual(['c']);
      });
    });

    describe('events (the outbox)', () => {
      const ev = (id: string, n: number) => ({ type: 'record.created' as const, subject: { kind: 'item', id }, data: { n, text: 'Дрель ✓' } });

      it('appends and reads after a cursor, oldest first, with a limit', async () => {
        expect(await store.events.latest()).toBe(0);
        expect(await store.events.after(0, 10)).toEqual([]);
        await store.events.append([ev('a', 1), ev('b', 2)]);
        await store.events.append([ev('c', 3)]);
        const all = await store.events.after(0, 10);
        expect(all.map((e) => e.subject.id)).toEqual(['a', 'b', 'c']);
        expect(all[0]).toMatchObject({ type: 'record.created', subject: { kind: 'item', id: 'a' }, data: { n: 1, text: 'Дрель ✓' } });
        expect(all[0]!.occurredAt).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
        expect(all[1]!.id).toBeGreaterThan(all[0]!.id);
        expect(all[2]!.id).toBeGreaterThan(all[1]!.id);
        expect(await store.events.latest()).toBe(all[2]!.id);
        expect((await store.events.after(all[0]!.id, 1)).map((e) => e.subject.id)).toEqual(['b']);
        expect(await store.events.after(all[2]!.id, 10)).toEqual([]);
        await expect(store.events.after(-1, 10)).rejects.toThrow(RangeError);
      });

      it('retention (prune): deletes finished deliveries and the events every consumer passed and no delivery names, in bounded batches', async () => {
        const future = '2999-01-01T00:00:00.000Z';
        await store.webhooks.create({ id: 'w1', url: 'http://127.0.0.1:9/hook', description: '', eventTypes: ['record.created'], enabled: true, secret: 's' });
        await store.events.append([ev('a', 1), ev('b', 2), ev('c', 3), ev('d', 4), ev('e', 5)]);
        const [e1, e2, e3, e4, e5] = (await store.events.after(0, 10)).map((e) => e.id) as [number, number, number, number, number];
        // No consumer yet: none has passed anything.
        expect(await store.events.prune(future, 500)).toEqual({ events: 0, deliveries: 0, syncs: 0 });
        expect(await store.consumers.acquire('webhooks', 'me', 60_000, 'beginning')).toBe(0);
        expect(await store.consumers.acquire('label-staleness', 'me', 60_000, 'beginning')).toBe(0);
        expect(await store.webhooks.fanOut({ name: 'webhooks', owner: 'me', from: 0, to: e4 }, 60_000, [e1, e2, e3, e4].map((id) => ({ id, type: 'record.created' })))).toBe(true);
        expect(await store.consumers.advance({ name: 'label-staleness', owner: 'me', from: 0, to: e3 }, 60_000)).toBe(true);
        const claimed = await store.webhooks.claim('me', 60_000, 10);
        const of = (id: number) => claimed.find((d) => d.eventId === id)!.id;
        expect(await store.webhooks.record(of(e1), 'me', { state: 'delivered', status: 200, error: null })).toBe(true);
        expect(await store.webhooks.record(of(e2), 'me', { state: 'failed', status: 500, error: 'answered 500' })).toBe(true);
        expect(await store.webhooks.record(of(e3), 'me', { state: 'pending', status: 500, error: 'answered 500', nextAttemptAt: future })).toBe(true);
        expect(await store.webhooks.record(of(e4), 'me', { state: 'delivered', status: 200, error: null })).toBe(true);
        // Nothing is older than a cut-off in the past.
        expect(await store.events.prune('2000-01-01T00:00:00.000Z', 500)).toEqual({ events: 0, deliveries: 0, syncs: 0 });
        // One at a time: e1's delivery, then e1 (no delivery names it now).
        expect(await store.events.prune(future, 1)).toEqual({ events: 1, deliveries: 1, syncs: 0 });
        expect((await store.events.after(0, 10)).map((e) => e.id)).toEqual([e2, e3, e4, e5]);
        // The rest: e2's failed and e4's delivered deliveries, then e2. e3 waits for its pending delivery;
        // e4 and e5 for label-staleness (cursor e3), e5 for the fan-out (cursor e4).
        expect(await store.events.prune(future, 500)).toEqual({ events: 1, deliveries: 2, syncs: 0 });
        expect((await store.events.after(0, 10)).map((e) => e.id)).toEqual([e3, e4, e5]);
        expect((await store.webhooks.deliveries('w1', 10)).map((d) => [d.eventId, d.state])).toEqual([[e3, 'pending']]);
        expect(await store.events.prune(future, 500)).toEqual({ events: 0, deliveries: 0, syncs: 0 });
        // Consumers move on: e4 goes; e5 stays until the fan-out passes it too; e3 until its delivery ends.
        expect(await store.consumers.advance({ name: 'label-staleness', owner: 'me', from: e3, to: e5 }, 60_000)).toBe(true);
        expect(await store.events.prune(future, 500)).toEqual({ events: 1, deliveries: 0, syncs: 0 });
        expect((await store.events.after(0, 10)).map((e) => e.id)).toEqual([e3, e5]);
        expect(await store.events.latest()).toBe(e5);
      });

      it('keeps ids growing across a reopen, and never reuses one', async () => {
        await store.events.append([ev('a', 1)]);
        const first = await store.events.latest();
        await h.query('DELETE FROM events');
        const again = await h.reopen();
        await again.events.append([ev('b', 2)]);
        const [b] = await again.events.after(0, 10);
        expect(b!.id).toBeGreaterThan(first);
      });

      it('an import appends record.created, then record.changed only for what changed, in its transaction', async () => {
        const file = (name: string) => JSON.stringify([
          { kind: 'location', id: 'shelf', name: 'Shelf' },
          { kind: 'item', id: 'drill', name, parentId: 'shelf', assetId: 7 },
        ]);
        expect((await importRecords(store, file('Drill'), 'json')).errors).toEqual([]);
        const created = await store.events.after(0, 10);
        expect(created.map((e) => [e.type, e.subject.kind, e.subject.id])).toEqual([
          ['record.created', 'location', 'shelf'],
          ['record.created', 'item', 'drill'],
        ]);
        const drill = await store.records.getItem('drill');
        expect(created[1]!.data).toEqual({ record: { kind: 'item', id: 'drill', name: 'Drill', description: '', parentId: 'shelf', assetId: 7, updatedAt: drill!.updatedAt } });

        const cursor = created[1]!.id;
        await importRecords(store, file('Drill'), 'json'); // nothing changed: no events
        expect(await store.events.after(cursor, 10)).toEqual([]);

        await importRecords(store, file('Hammer drill'), 'json');
        const changed = await store.events.after(cursor, 10);
        expect(changed).toHaveLength(1);
        expect(changed[0]).toMatchObject({ type: 'record.changed', subject: { kind: 'item', id: 'drill' } });
        expect(changed[0]!.data).toMatchObject({ record: { name: 'Hammer drill', assetId: 7 }, previous: { name: 'Drill', updatedAt: drill!.updatedAt } });

        // A refused import writes nothing, events neither.
        const refused = await importRecords(store, JSON.stringify([{ kind: 'item', id: 'x', name: 'X', parentId: 'nowhere' }]), 'json');
        expect(refused.problemCount).toBe(1);
        expect(await store.events.latest()).toBe(changed[0]!.id);
      });
    });

    describe('webhooks (migration 21)', () => {
      const hook = (id: string, over: Partial<NewWebhook> = {}): NewWebhook => ({
        id, url: `https://receiver.example.test/${id}?token=t0k`, description: `hook ${id}`, eventTypes: ['record.created', 'print_job.printed'], enabled: true, secret: `whsec_${id}`, ...over,
      });
      const ev = (id: string, type: EventType = 'record.created'): NewEvent => ({ type, subject: { kind: 'item', id }, data: { id, text: 'Дрель ✓' } });
      /** Appends the events and fans out everything after the 'webhooks' consumer's cursor, as the consumer does; answers the new events' ids. */
      const fanOutNew = async (...events: NewEvent[]): Promise<number[]> => {
        const from = (await store.consumers.acquire('webhooks', 'me', 60_000, 'beginning'))!;
        if (events.length > 0) await store.events.append(events);
        const fresh = await store.events.after(from, 100);
        expect(await store.webhooks.fanOut({ name: 'webhooks', owner: 'me', from, to: fresh.at(-1)!.id }, 60_000, fresh.map((e) => ({ id: e.id, type: e.type })))).toBe(true);
        return fresh.slice(-events.length).map((e) => e.id);
      };
      /** Makes every pending delivery due now (a back-off elapsed). */
      const elapse = () => h.query(`UPDATE webhook_deliveries SET next_attempt_at = '2000-01-01T00:00:00.000Z' WHERE state = 'pending'`);

      it('are created, listed, read, changed at their ETag and deleted; the secret is stored to sign, never read back', async () => {
        expect(await store.webhooks.list()).toEqual([]);
        const before = new Date(Date.now() - 1000).toISOString();
        const a = await store.webhooks.create(hook('wh_a'));
        expect(a).toEqual({
          id: 'wh_a', url: 'https://receiver.example.test/wh_a?token=t0k', description: 'hook wh_a', eventTypes: ['record.created', 'print_job.printed'], enabled: true,
          etag: expect.stringMatching(/^"[A-Za-z0-9_-]+"$/), createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), updatedAt: a.createdAt,
        });
        expect(a.createdAt >= before).toBe(true);
        const b = await store.webhooks.create(hook('wh_b', { enabled: false, eventTypes: ['label.stale'], description: '' }));
        expect(b).toMatchObject({ enabled: false, eventTypes: ['label.stale'], description: '' });
        await expect(store.webhooks.create(hook('wh_a'))).rejects.toThrow(); // the id is taken
        expect((await store.webhooks.list()).map((w) => w.id)).toEqual(['wh_a', 'wh_b']);
        expect(await store.webhooks.get('wh_a')).toEqual(a);
        expect(await store.webhooks.get('nope')).toBeUndefined();
        for (const w of [...(await store.webhooks.list()), (await store.webhooks.get('wh_a'))!]) expect(JSON.stringify(w)).not.toContain('whsec_');
        expect((await h.query(`SELECT secret FROM webhooks WHERE id = 'wh_a'`))[0]!.secret).toBe('whsec_wh_a');

        // A change sets only what it gives, with a new ETag; at a stale ETag, or of no webhook, nothing.
        const changed = await store.webhooks.update('wh_a', { description: 'inventory backend', enabled: false }, a.etag);
        expect(changed).toMatchObject({ id: 'wh_a', url: a.url, description: 'inventory backend', eventTypes: a.eventTypes, enabled: false, createdAt: a.createdAt });
        if (typeof changed === 'string') throw new Error(changed);
        expect(changed.etag).not.toBe(a.etag);
        expect(changed.updatedAt >= a.updatedAt).toBe(true);
        expect(await store.webhooks.update('wh_a', { url: 'https://elsewhere.example.test/' }, a.etag)).toBe('changed');
        expect(await store.webhooks.update('missing', { enabled: true }, null)).toBe('missing');
        const again = await store.webhooks.update('wh_a', { url: 'https://elsewhere.example.test/', eventTypes: ['print_job.failed', 'print_job.held'], enabled: true }, null);
        expect(again).toMatchObject({ url: 'https://elsewhere.example.test/', eventTypes: ['print_job.failed', 'print_job.held'], enabled: true, description: 'inventory backend' });
        expect(await store.webhooks.get('wh_a')).toEqual(again);
        expect((await h.query(`SELECT secret FROM webhooks WHERE id = 'wh_a'`))[0]!.secret).toBe('whsec_wh_a'); // a change keeps the secret

        expect(await store.webhooks.delete('wh_a')).toBe(true);
        expect(await store.webhooks.delete('wh_a')).toBe(false);
        expect(await store.webhooks.get('wh_a')).toBeUndefined();
        expect((await store.webhooks.list()).map((w) => w.id)).toEqual(['wh_b']);
      });

      it('fan-out: one delivery per enabled webhook and event of a type it wants, newer than the webhook; nothing without the lease', async () => {
        await store.events.append([ev('before')]); // older than every webhook: delivered to none
        await store.webhooks.create(hook('wh_all', { eventTypes: ['record.created', 'record.changed'] }));
        await store.webhooks.create(hook('wh_printed', { eventTypes: ['print_job.printed'] }));
        await store.webhooks.create(hook('wh_off', { eventTypes: ['record.created'], enabled: false }));
        const [created, printed, changed] = await fanOutNew(ev('x'), ev('y', 'print_job.printed'), ev('z', 'record.changed'));
        const of = async (id: string) => (await store.webhooks.deliveries(id, 100)).map((d) => d.eventId).sort((p, q) => p - q);
        expect(await of('wh_all')).toEqual([created, changed]);
        expect(await of('wh_printed')).toEqual([printed]);
        expect(await of('wh_off')).toEqual([]);
        expect((await store.webhooks.deliveries('wh_all', 100))[0]).toMatchObject({ webhookId: 'wh_all', state: 'pending', attempts: 0, lastStatus: null, lastError: null, deliveredAt: null });

        // A fan-out from a stale cursor or by an instance without the lease writes nothing.
        await store.events.append([ev('w')]);
        const [w] = (await store.events.after(changed!, 10)).map((e) => e.id);
        expect(await store.webhooks.fanOut({ name: 'webhooks', owner: 'me', from: created!, to: w! }, 60_000, [{ id: w!, type: 'record.created' }])).toBe(false);
        expect(await store.webhooks.fanOut({ name: 'webhooks', owner: 'other', from: changed!, to: w! }, 60_000, [{ id: w!, type: 'record.created' }])).toBe(false);
        expect(await of('wh_all')).toEqual([created, changed]);
        expect((await store.consumers.get('webhooks'))!.cursor).toBe(changed);
        await fanOutNew(); // the lease holder fans it out, while wh_off is still disabled
        expect(await of('wh_all')).toEqual([created, changed, w]);
        expect(await of('wh_off')).toEqual([]);

        // Enabled later, a webhook gets what comes after, not what passed while it was off.
        const off = (await store.webhooks.get('wh_off'))!;
        await store.webhooks.update('wh_off', { enabled: true }, off.etag);
        const [later] = await fanOutNew(ev('v'));
        expect(await of('wh_off')).toEqual([later]);
        expect(await of('wh_all')).toEqual([created, changed, w, later]);
      });

      it('a disabled webhook is sent nothing: its pending deliveries are not claimed or counted as due, and go out once it is enabled again', async () => {
        await store.webhooks.create(hook('wh_a'));
        await store.webhooks.create(hook('wh_b'));
        const [e1] = await fanOutNew(ev('a'));
        const a = (await store.webhooks.get('wh_a'))!;
        await store.webhooks.update('wh_a', { enabled: false }, a.etag);
        // Only wh_b's delivery is claimed; wh_a's stays pending and is not due.
        const claimed = await store.webhooks.claim('one', 60_000, 10);
        expect(claimed.map((d) => [d.webhookId, d.eventId])).toEqual([['wh_b', e1]]);
        expect(await store.webhooks.record(claimed[0]!.id, 'one', { state: 'delivered', status: 200, error: null })).toBe(true);
        expect(await store.webhooks.nextDueAt()).toBeUndefined();
        expect(await store.webhooks.claim('one', 60_000, 10)).toEqual([]);
        expect((await store.webhooks.deliveries('wh_a', 10)).map((d) => [d.eventId, d.state, d.attempts])).toEqual([[e1, 'pending', 0]]);
        // Enabled again: due and claimed.
        await store.webhooks.update('wh_a', { enabled: true }, null);
        expect((await store.webhooks.nextDueAt())! <= new Date().toISOString()).toBe(true);
        expect((await store.webhooks.claim('one', 60_000, 10)).map((d) => [d.webhookId, d.eventId])).toEqual([['wh_a', e1]]);
      });

      it('a delivery is claimed once when due, with what sending needs; a failure waits its back-off, keeps status and error, and is tried again', async () => {
        await store.webhooks.create(hook('wh_a'));
        expect(await store.webhooks.nextDueAt()).toBeUndefined();
        expect(await store.webhooks.claim('one', 60_000, 10)).toEqual([]);
        const [e1, e2] = await fanOutNew(ev('a'), ev('b'));
        const due = await store.webhooks.nextDueAt();
        expect(due! <= new Date().toISOString()).toBe(true);

        const claimed = await store.webhooks.claim('one', 60_000, 10);
        expect(claimed.map((d) => d.eventId)).toEqual([e1, e2]);
        expect(claimed[0]).toMatchObject({
          webhookId: 'wh_a', eventId: e1, state: 'delivering', attempts: 1, url: 'https://receiver.example.test/wh_a?token=t0k', secret: 'whsec_wh_a',
          event: { id: e1, type: 'record.created', subject: { kind: 'item', id: 'a' }, data: { id: 'a', text: 'Дрель ✓' } },
        });
        expect(await store.webhooks.claim('two', 60_000, 10)).toEqual([]); // each claimed once
        // Being sent: the next one due is when a lease lapses.
        expect((await store.webhooks.nextDueAt())! > new Date(Date.now() + 30_000).toISOString()).toBe(true);

        // Only the claimer records an outcome.
        const [d1, d2] = claimed as [ClaimedDelivery, ClaimedDelivery];
        expect(await store.webhooks.record(d1.id, 'two', { state: 'delivered', status: 204, error: null })).toBe(false);
        const retryAt = new Date(Date.now() + 3_600_000).toISOString();
        expect(await store.webhooks.record(d1.id, 'one', { state: 'pending', status: 500, error: 'answered 500', nextAttemptAt: retryAt })).toBe(true);
        expect(await store.webhooks.record(d1.id, 'one', { state: 'delivered', status: 204, error: null })).toBe(false); // no longer its lease
        expect(await store.webhooks.record(d2.id, 'one', { state: 'pending', status: null, error: `connect ECONNREFUSED ${'x'.repeat(600)}`, nextAttemptAt: retryAt })).toBe(true);

        const listed = await store.webhooks.deliveries('wh_a', 10);
        expect(listed.map((d) => d.id)).toEqual([d2.id, d1.id]); // newest first
        expect(listed[1]).toMatchObject({ state: 'pending', attempts: 1, lastStatus: 500, lastError: 'answered 500', nextAttemptAt: retryAt, deliveredAt: null });
        expect(listed[0]).toMatchObject({ lastStatus: null, nextAttemptAt: retryAt });
        expect(listed[0]!.lastError).toHaveLength(500); // bounded
        expect(listed[0]!.lastError!.startsWith('connect ECONNREFUSED x')).toBe(true);
        // Not due before its back-off ends.
        expect(await store.webhooks.claim('one', 60_000, 10)).toEqual([]);
        expect(await store.webhooks.nextDueAt()).toBe(retryAt);

        await elapse();
        const second = await store.webhooks.claim('two', 60_000, 1); // a limit
        expect(second.map((d) => [d.id, d.attempts])).toEqual([[d1.id, 2]]);
        expect(await store.webhooks.record(d1.id, 'two', { state: 'delivered', status: 204, error: null })).toBe(true);
        const delivered = (await store.webhooks.deliveries('wh_a', 10)).find((d) => d.id === d1.id)!;
        expect(delivered).toMatchObject({ state: 'delivered', attempts: 2, lastStatus: 204, lastError: null, nextAttemptAt: null });
        expect(delivered.deliveredAt).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
        expect(await store.webhooks.record(d1.id, 'two', { state: 'failed', status: 500, error: 'late' })).toBe(false); // delivered stays delivered

        // Failed for good: no next attempt, never claimed again.
        const [third] = await store.webhooks.claim('one', 60_000, 10);
        expect(third).toMatchObject({ id: d2.id, attempts: 2 });
        expect(await store.webhooks.record(d2.id, 'one', { state: 'failed', status: 502, error: 'answered 502' })).toBe(true);
        expect((await store.webhooks.deliveries('wh_a', 10)).find((d) => d.id === d2.id)).toMatchObject({ state: 'failed', attempts: 2, lastStatus: 502, lastError: 'answered 502', nextAttemptAt: null, deliveredAt: null });
        await elapse();
        expect(await store.webhooks.claim('one', 60_000, 10)).toEqual([]);
        expect(await store.webhooks.nextDueAt()).toBeUndefined();
      });

      it('a lapsed lease (an instance died mid-send) is claimed again by another, the attempt counted; the first can no longer record', async () => {
        await store.webhooks.create(hook('wh_a'));
        const [e1] = await fanOutNew(ev('a'));
        const [first] = await store.webhooks.claim('dead', 1, 10);
        expect(first).toMatchObject({ eventId: e1, attempts: 1 });
        await new Promise((r) => setTimeout(r, 50));
        const [again] = await store.webhooks.claim('alive', 60_000, 10);
        expect(again).toMatchObject({ id: first!.id, eventId: e1, attempts: 2, state: 'delivering' });
        expect(await store.webhooks.record(first!.id, 'dead', { state: 'delivered', status: 204, error: null })).toBe(false);
        expect(await store.webhooks.record(first!.id, 'alive', { state: 'delivered', status: 204, error: null })).toBe(true);
      });

      it('several instances claiming at once each get different deliveries', async () => {
        await store.webhooks.create(hook('wh_a'));
        const ids = await fanOutNew(...Array.from({ length: 12 }, (_, i) => ev(`e${i}`)));
        const others = await Promise.all([h.reopen(), h.reopen()]);
        const claims = await Promise.all([store, ...others].map((s, i) => s.webhooks.claim(`owner-${i}`, 60_000, 5)));
        const got = claims.flat().map((d) => d.eventId);
        expect(got).toHaveLength(new Set(got).size);
        expect(got.length).toBe(12);
        expect(new Set(got)).toEqual(new Set(ids));
      });

      it('manual redelivery: a new delivery of the same event, due now, whatever became of the earlier one; none for an unknown webhook or event', async () => {
        await store.webhooks.create(hook('wh_a'));
        await store.webhooks.create(hook('wh_b', { eventTypes: ['label.stale'] }));
        const [e1] = await fanOutNew(ev('a'));
        const [d] = await store.webhooks.claim('one', 60_000, 10);
        expect(await store.webhooks.record(d!.id, 'one', { state: 'failed', status: 500, error: 'answered 500' })).toBe(true);

        const again = await store.webhooks.redeliver('wh_a', e1!);
        expect(again).toMatchObject({ webhookId: 'wh_a', eventId: e1, state: 'pending', attempts: 0, lastStatus: null, lastError: null, deliveredAt: null });
        expect(again!.id).toBeGreaterThan(d!.id);
        expect(again!.nextAttemptAt! <= new Date().toISOString()).toBe(true);
        // The earlier one is kept as it ended; the new one is listed first.
        expect((await store.webhooks.deliveries('wh_a', 10)).map((x) => [x.id, x.state])).toEqual([[again!.id, 'pending'], [d!.id, 'failed']]);
        const [sent] = await store.webhooks.claim('one', 60_000, 10);
        expect(sent).toMatchObject({ id: again!.id, attempts: 1, event: { id: e1 } });
        // Any event to any webhook, wanted by it or not (a person asked for it).
        expect(await store.webhooks.redeliver('wh_b', e1!)).toMatchObject({ webhookId: 'wh_b', eventId: e1 });
        expect(await store.webhooks.redeliver('wh_a', e1! + 1000)).toBeUndefined();
        expect(await store.webhooks.redeliver('nope', e1!)).toBeUndefined();
      });

      it("lists a webhook's deliveries only, newest first, at most the limit (1 to 100)", async () => {
        await store.webhooks.create(hook('wh_a'));
        await store.webhooks.create(hook('wh_b'));
        const ids = await fanOutNew(...Array.from({ length: 5 }, (_, i) => ev(`e${i}`)));
        const a = await store.webhooks.deliveries('wh_a', 100);
        expect(a.map((d) => d.eventId)).toEqual([...ids].reverse());
        expect(a.every((d) => d.webhookId === 'wh_a')).toBe(true);
        expect((await store.webhooks.deliveries('wh_a', 2)).map((d) => d.id)).toEqual(a.slice(0, 2).map((d) => d.id));
        expect(await store.webhooks.deliveries('wh_a', 0)).toHaveLength(1);
        expect(await store.webhooks.deliveries('nope', 10)).toEqual([]);
      });

      it('a webhook deleted takes its deliveries, pending or being sent, with it; another keeps its own', async () => {
        await store.webhooks.create(hook('wh_a'));
        await store.webhooks.create(hook('wh_b'));
        await fanOutNew(ev('a'), ev('b'));
        const claimed = await store.webhooks.claim('one', 60_000, 1);
        expect(claimed).toHaveLength(1);
        const gone = claimed[0]!.webhookId === 'wh_a' ? 'wh_a' : 'wh_b';
        const kept = gone === 'wh_a' ? 'wh_b' : 'wh_a';
        expect(await store.webhooks.delete(gone)).toBe(true);
        expect(await store.webhooks.deliveries(gone, 10)).toEqual([]);
        expect(await h.query(`SELECT id FROM webhook_deliveries WHERE webhook_id = '${gone}'`)).toEqual([]);
        expect(await store.webhooks.record(claimed[0]!.id, 'one', { state: 'delivered', status: 204, error: null })).toBe(false);
        expect(await store.webhooks.deliveries(kept, 10)).toHaveLength(2);
        expect((await store.webhooks.claim('one', 60_000, 10)).map((d) => d.webhookId)).toEqual([kept, kept]);
        expect(await store.webhooks.redeliver(gone, (await store.events.latest()))).toBeUndefined();
      });

      it('survives reopening the database: webhooks, secrets and deliveries as they were', async () => {
        await store.webhooks.create(hook('wh_a'));
        const [e1] = await fanOutNew(ev('a'));
        const again = await h.reopen();
        expect(await again.webhooks.get('wh_a')).toEqual(await store.webhooks.get('wh_a'));
        const [d] = await again.webhooks.claim('one', 60_000, 10);
        expect(d).toMatchObject({ eventId: e1, secret: 'whsec_wh_a' });
      });
    });

    describe('record syncs (the bulk write\'s Idempotency-Key, migration 18)', () => {
      const body = (name: string) => JSON.stringify([{ kind: 'location', id: 'shelf', name: 'Shelf' }, { kind: 'item', id: 'drill', name, parentId: 'shelf', assetId: 7 }]);
      const hashOf = (text: string) => createHash('sha256').update(text).digest('hex');
      const keyFor = (text: string, over: Partial<RecordSyncKey> = {}): RecordSyncKey => ({ tokenId: 'tok1', key: 'sync-1', requestHash: hashOf(text), since: '2000-01-01T00:00:00.000Z', ...over });

      it('a key is taken with the write: the same key and body answer the stored answer, writing nothing', async () => {
        const first = body('Drill');
        expect(await store.records.syncByKey('tok1', 'sync-1', '2000-01-01T00:00:00.000Z')).toBeUndefined();
        const done = await importRecords(store, first, 'json', { syncKey: keyFor(first) });
        expect(done).toMatchObject({ imported: 2, written: 2, problemCount: 0 });
        expect(done.replayed).toBeUndefined();
        const kept = await store.records.syncByKey('tok1', 'sync-1', '2000-01-01T00:00:00.000Z');
        expect(kept).toEqual({ requestHash: hashOf(first), response: expect.any(String) });
        expect(JSON.parse(kept!.response)).toEqual({ records: 2, written: 2, unchanged: 0 });

        const events = await store.events.latest();
        const replay = await importRecords(store, first, 'json', { syncKey: keyFor(first) });
        expect(replay).toMatchObject({ imported: 0, written: 0, problemCount: 0, replayed: kept });
        expect(await store.events.latest()).toBe(events);
        expect(await h.query('SELECT token_id, idempotency_key FROM record_syncs')).toEqual([{ token_id: 'tok1', idempotency_key: 'sync-1' }]);
      });

      it('the same key with another body: the first answer, with the first body\'s digest (the API refuses it), and the write undone', async () => {
        const first = body('Drill');
        await importRecords(store, first, 'json', { syncKey: keyFor(first) });
        const events = await store.events.latest();
        const other = body('Hammer drill');
        const refused = await importRecords(store, JSON.stringify([...JSON.parse(other), { kind: 'item', id: 'saw', name: 'Saw' }]), 'json', { syncKey: keyFor(other) });
        expect(refused.replayed).toEqual({ requestHash: hashOf(first), response: JSON.stringify({ records: 2, written: 2, unchanged: 0 }) });
        expect(refused.replayed!.requestHash).not.toBe(hashOf(other));
        expect(refused).toMatchObject({ imported: 0, written: 0 });
        expect((await store.records.getItem('drill'))!.name).toBe('Drill');
        expect(await store.records.getItem('saw')).toBeUndefined();
        expect(await store.records.count()).toBe(2);
        expect(await store.events.latest()).toBe(events);
      });

      it('keys are per token: another token\'s same key is a key of its own', async () => {
        const first = body('Drill');
        await importRecords(store, first, 'json', { syncKey: keyFor(first) });
        const other = body('Hammer drill');
        const done = await importRecords(store, other, 'json', { syncKey: keyFor(other, { tokenId: 'tok2' }) });
        expect(done).toMatchObject({ imported: 2, written: 1 });
        expect(done.replayed).toBeUndefined();
        expect(await store.records.syncByKey('tok2', 'sync-1', '2000-01-01T00:00:00.000Z')).toEqual({ requestHash: hashOf(other), response: JSON.stringify({ records: 2, written: 1, unchanged: 1 }) });
        expect((await store.records.syncByKey('tok1', 'sync-1', '2000-01-01T00:00:00.000Z'))!.requestHash).toBe(hashOf(first));
        expect(await store.records.syncByKey('tok1', 'sync-2', '2000-01-01T00:00:00.000Z')).toBeUndefined();
      });

      it('an expired key is not found, and is released to be taken again with a new write', async () => {
        const first = body('Drill');
        await importRecords(store, first, 'json', { syncKey: keyFor(first) });
        const future = new Date(Date.now() + 60_000).toISOString(); // the window has passed
        expect(await store.records.syncByKey('tok1', 'sync-1', future)).toBeUndefined();
        const other = body('Hammer drill');
        const done = await importRecords(store, other, 'json', { syncKey: keyFor(other, { since: future }) });
        expect(done).toMatchObject({ imported: 2, written: 1 });
        expect(done.replayed).toBeUndefined();
        expect((await store.records.getItem('drill'))!.name).toBe('Hammer drill');
        expect(await store.records.syncByKey('tok1', 'sync-1', '2000-01-01T00:00:00.000Z')).toEqual({ requestHash: hashOf(other), response: JSON.stringify({ records: 2, written: 1, unchanged: 1 }) });
        expect(await h.query('SELECT request_hash FROM record_syncs')).toEqual([{ request_hash: hashOf(other) }]);
      });

      it('retention (events.prune) deletes keys created before its cut-off, in bounded batches, and keeps the rest', async () => {
        for (const [token, name] of [['tok1', 'Drill'], ['tok2', 'Hammer drill'], ['tok3', 'Drill']]) {
          const text = body(name!);
          await importRecords(store, text, 'json', { syncKey: keyFor(text, { tokenId: token }) });
        }
        await h.query(`UPDATE record_syncs SET created_at = '2020-01-01T00:00:00.000Z' WHERE token_id <> 'tok3'`); // two past the retention period
        const cutOff = '2021-01-01T00:00:00.000Z';
        expect(await store.events.prune(cutOff, 1)).toEqual({ events: 0, deliveries: 0, syncs: 1 });
        expect(await store.events.prune(cutOff, 500)).toEqual({ events: 0, deliveries: 0, syncs: 1 });
        expect(await store.events.prune(cutOff, 500)).toEqual({ events: 0, deliveries: 0, syncs: 0 });
        expect(await h.query('SELECT token_id FROM record_syncs')).toEqual([{ token_id: 'tok3' }]);
        expect(await store.records.syncByKey('tok3', 'sync-1', '2000-01-01T00:00:00.000Z')).toBeDefined();
      });

      it('a refused import takes no key', async () => {
        const bad = JSON.stringify([{ kind: 'item', id: 'x', name: 'X', parentId: 'nowhere' }]);
        expect((await importRecords(store, bad, 'json', { syncKey: keyFor(bad) })).problemCount).toBe(1);
        expect(await store.records.syncByKey('tok1', 'sync-1', '2000-01-01T00:00:00.000Z')).toBeUndefined();
        const good = body('Drill');
        expect((await importRecords(store, good, 'json', { syncKey: keyFor(good) })).written).toBe(2);
      });
    });

    describe('event consumers (cursor and lease)', () => {
      const ev = (id: string) => ({ type: 'record.created' as const, subject: { kind: 'item', id }, data: {} });

      it('one owner at a time holds a lease; it lapses, is released, and starts at latest or the beginning', async () => {
        await store.events.append([ev('a'), ev('b')]);
        const latest = await store.events.latest();
        expect(await store.consumers.acquire('hooks', 'one', 60_000, 'latest')).toBe(latest);
        expect(await store.consumers.acquire('hooks', 'two', 60_000, 'latest')).toBeUndefined();
        expect(await store.consumers.acquire('hooks', 'one', 60_000, 'latest')).toBe(latest); // its own: renewed
        expect(await store.consumers.acquire('rules', 'two', 60_000, 'beginning')).toBe(0);
        expect(await store.consumers.renew('hooks', 'two', 60_000)).toBe(false);
        expect(await store.consumers.release('hooks', 'one')).toBe(true);
        expect(await store.consumers.acquire('hooks', 'two', 50, 'latest')).toBe(latest);
        await new Promise((r) => setTimeout(r, 120));
        expect(await store.consumers.acquire('hooks', 'one', 60_000, 'latest')).toBe(latest); // lapsed
        expect(await store.consumers.get('hooks')).toMatchObject({ name: 'hooks', cursor: latest, leaseOwner: 'one' });
        await expect(store.consumers.acquire('Bad name', 'one', 1000, 'latest')).rejects.toThrow();
      });

      it('advances only under its lease and from the cursor it read (compare and set)', async () => {
        await store.events.append([ev('a'), ev('b'), ev('c')]);
        expect(await store.consumers.acquire('c1', 'one', 60_000, 'beginning')).toBe(0);
        const [a, b, c] = await store.events.after(0, 10);
        expect(await store.consumers.advance({ name: 'c1', owner: 'one', from: 0, to: a!.id }, 60_000)).toBe(true);
        expect(await store.consumers.advance({ name: 'c1', owner: 'one', from: 0, to: b!.id }, 60_000)).toBe(false); // stale from
        expect(await store.consumers.advance({ name: 'c1', owner: 'two', from: a!.id, to: b!.id }, 60_000)).toBe(false); // not its lease
        expect((await store.consumers.get('c1'))!.cursor).toBe(a!.id);
        // Another owner takes the lapsed lease: the old owner's advance fails, the new one's works.
        expect(await store.consumers.acquire('c1', 'one', 1, 'beginning')).toBe(a!.id);
        await new Promise((r) => setTimeout(r, 30));
        expect(await store.consumers.acquire('c1', 'two', 60_000, 'beginning')).toBe(a!.id);
        expect(await store.consumers.advance({ name: 'c1', owner: 'one', from: a!.id, to: c!.id }, 60_000)).toBe(false);
        expect(await store.consumers.advance({ name: 'c1', owner: 'two', from: a!.id, to: c!.id }, 60_000)).toBe(true);
        expect((await store.consumers.get('c1'))!.cursor).toBe(c!.id);
        expect(await store.consumers.get('nobody')).toBeUndefined();
      });
    });

    describe('print rules', () => {
      const rule = (id: string, over: Partial<PrintRule> = {}): PrintRule => ({
        id, name: `Rule ${id}`, locationId: 'shelf', kinds: ['item'], triggers: ['created', 'moved'], template: 'default', printer: null, tokenId: 'tok', createdAt: `2026-01-01T00:00:0${id.length}.000Z`, ...over,
      });
      const ruleJob = (id: string, key: string) => ({
        id, printer: 'default', template: 'small', title: 'item label: X', fields: { kind: 'item', id: 'x' }, tokenId: 'tok', idempotencyKey: key, maxAttempts: 3, png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]), heldReason: null,
      });

      it('are created, listed, read and deleted', async () => {
        expect(await store.printRules.list()).toEqual([]);
        await store.printRules.create(rule('a'));
        await store.printRules.create(rule('bb', { kinds: ['item', 'location'], triggers: ['moved'], printer: 'zebra' }));
        expect(await store.printRules.list()).toEqual([rule('a'), rule('bb', { kinds: ['item', 'location'], triggers: ['moved'], printer: 'zebra' })]);
        expect(await store.printRules.get('bb')).toMatchObject({ printer: 'zebra', kinds: ['item', 'location'], triggers: ['moved'] });
        expect(await store.printRules.get('nope')).toBeUndefined();
        expect(await store.printRules.delete('a')).toBe(true);
        expect(await store.printRules.delete('a')).toBe(false);
        expect((await store.printRules.list()).map((r) => r.id)).toEqual(['bb']);
      });

      it('fire stores the jobs and moves the cursor in one transaction, once per key, and nothing without the lease', async () => {
        await store.events.append([{ type: 'record.created', subject: { kind: 'item', id: 'x' }, data: {} }, { type: 'record.created', subject: { kind: 'item', id: 'y' }, data: {} }]);
        const [a, b] = await store.events.after(0, 10);
        expect(await store.consumers.acquire('print-rules', 'one', 60_000, 'beginning')).toBe(0);
        expect(await store.printRules.fire({ name: 'print-rules', owner: 'one', from: 0, to: a!.id }, 60_000, [ruleJob('j1', `print-rule:r:${a!.id}`)])).toEqual({ advanced: true, created: 1 });
        // A stale cursor (the batch was committed already: a crash lost the answer): nothing is written.
        expect(await store.printRules.fire({ name: 'print-rules', owner: 'one', from: 0, to: a!.id }, 60_000, [ruleJob('j2', `print-rule:r:${a!.id}`)])).toEqual({ advanced: false, created: 0 });
        // Not its lease: nothing is written.
        expect(await store.printRules.fire({ name: 'print-rules', owner: 'two', from: a!.id, to: b!.id }, 60_000, [ruleJob('j3', `print-rule:r:${b!.id}`)])).toEqual({ advanced: false, created: 0 });
        // A key already stored (the same rule and event) is skipped, a new one stored.
        expect(await store.printRules.fire({ name: 'print-rules', owner: 'one', from: a!.id, to: b!.id }, 60_000, [ruleJob('j4', `print-rule:r:${a!.id}`), ruleJob('j5', `print-rule:r:${b!.id}`)])).toEqual({ advanced: true, created: 1 });
        expect((await store.consumers.get('print-rules'))!.cursor).toBe(b!.id);
        expect(await store.printJobs.get('j1')).toMatchObject({ state: 'queued', idempotencyKey: `print-rule:r:${a!.id}` });
        expect(await store.printJobs.get('j2')).toBeUndefined();
        expect(await store.printJobs.get('j3')).toBeUndefined();
        expect(await store.printJobs.get('j4')).toBeUndefined();
        expect(await store.printJobs.get('j5')).toMatchObject({ state: 'queued' });
      });
    });

    describe('migrations', () => {
      it('are recorded once and re-applying them changes nothing', async () => {
        await store.records.upsertMany([loc('kept', 'Kept')]);
        const before = await h.query('SELECT version, name, applied_at FROM schema_migrations ORDER BY version');
        expect(before.map((r) => Number(r.version))).toEqual(MIGRATIONS.map((m) => m.version));
        const again = await h.reopen();
        expect(await again.records.getLocation('kept')).toBeDefined();
        expect(await h.query('SELECT version, name, applied_at FROM schema_migrations ORDER BY version')).toEqual(before);
      });

      it('refuse a database migrated by a newer release', async () => {
        await h.query(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${LATEST_VERSION + 1}, 'future', '2030-01-01T00:00:00.000Z')`);
        await expect(h.reopen()).rejects.toThrow(`database schema is at version ${LATEST_VERSION + 1}`);
      });
    });

    it('fails ping after close', async () => {
      await store.close();
      await expect(store.ping()).rejects.toThrow();
      await store.close(); // closing twice is harmless
    });
  });
}

