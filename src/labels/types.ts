/** What a label shows, independent of how it is drawn. Built by content.ts from a record. */
export interface LabelContent {
  kind: 'location' | 'item' | 'asset';
  /** The most prominent line: the record's name, or the asset id (`000-001`) on asset labels. */
  title: string;
  /** Secondary lines in order of importance, e.g. item name, location path. */
  lines: string[];
  /** Absolute URL the QR code encodes. */
  qrUrl: string;
  /** Code128 payload (asset labels only). */
  barcode?: string;
  /** Fixed line printed on every label, e.g. "If found, call ...". */
  footer?: string;
}
