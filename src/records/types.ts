/**
 * The data layer's contract. Every store (SQLite today, PostgreSQL for scale-out)
 * implements these interfaces; nothing above src/records knows which one it talks to.
 * All methods are async so a networked store fits without changing callers.
 */

export type RecordKind = 'location' | 'item';

export interface InventoryRecord {
  kind: RecordKind;
  /** Location or item identifier (a UUID or a slug), unique per kind. */
  id: string;
  name: string;
  /** Empty string when there is none. */
  description: string;
  /** Id of the parent location; null for a top-level location or an unplaced item. */
  parentId: string | null;
  /** Asset number (items only; `000-001` is asset 1). Unique across items. */
  assetId: number | null;
  /** ISO 8601 UTC timestamp of the last change. */
  updatedAt: string;
}

/** A record to insert or replace; updatedAt defaults to now. */
export type RecordInput = Omit<InventoryRecord, 'updatedAt'> & { updatedAt?: string };

export interface RecordStore {
  getLocation(id: string): Promise<InventoryRecord | undefined>;
  getItem(id: string): Promise<InventoryRecord | undefined>;
  getItemByAssetId(assetId: number): Promise<InventoryRecord | undefined>;
  /** Names from the top-level location down to `locationId` inclusive; [] if unknown. */
  locationPath(locationId: string): Promise<string[]>;
  /** Inserts or replaces all records in one transaction: all land or none do. */
  upsertMany(records: RecordInput[]): Promise<void>;
  count(): Promise<number>;
}

export type Scope = 'labels:read' | 'labels:print';
export const ALL_SCOPES: readonly Scope[] = ['labels:read', 'labels:print'];

export interface TokenInfo {
  /** Public, non-secret id (also the token's visible prefix); used to list and revoke. */
  id: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface TokenStore {
  /** Stores a token by its hash. The plaintext is never stored. */
  insert(token: { id: string; name: string; scopes: Scope[]; hash: string }): Promise<TokenInfo>;
  /** The active (not revoked) token with this hash, if any; records the use. */
  findActiveByHash(hash: string): Promise<TokenInfo | undefined>;
  list(): Promise<TokenInfo[]>;
  /** Revokes by id; false if no active token has that id. */
  revoke(id: string): Promise<boolean>;
  count(): Promise<number>;
}

export interface Store {
  records: RecordStore;
  tokens: TokenStore;
  /** Cheap liveness probe for /healthz. Throws when the store is unusable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
