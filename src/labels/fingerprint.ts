/**
 * What a label shows, as a short digest (issue 32): printing remembers it with each printed
 * label, and the label-staleness consumer compares it with the label the record would get now
 * (src/events/label-staleness.ts), so a change the label does not show (a custom field or a
 * description its design never names) does not make it stale.
 *
 * It digests the stock and the resolved content (content.ts: the text, the codes' data, the
 * design's sizes, boxes, logo and footer) that the layout draws on that stock, NOT the label
 * cache's key (label-cache.ts). That key digests the inputs: every custom field and the
 * description whether the design shows them or not, the engine version (a release that moves
 * a pixel does not make a printed label wrong), and the day and batch place of a design naming
 * {today} or {counter}. Here {today} and {counter} are fixed: they say when and in which batch
 * the label was printed, not what its record is, so a label showing them does not go stale
 * with the calendar.
 *
 * Form: `c1:<label kind>:<digest>`. The label kind says how to draw the record again (an item's
 * asset label is its item's row in printed_labels); `c1` names this form: a fingerprint of
 * another form (the keys remembered before it) never equals one of this, so its label stays
 * stale (the safe side).
 */
import { hash } from 'node:crypto';
import { resolveContent } from './content.js';
import type { LabelRecord, Template } from './design.js';
import { isLabelKind, type LabelKind } from '../records/kinds.js';

const FORM = 'c1';
/** {today} and {counter} as every fingerprint sees them (see above). */
const FIXED = { today: '2000-01-01', counter: 1 } as const;

export function labelFingerprint(record: LabelRecord, template: Template, footer: string | undefined): string {
  const content = resolveContent({ ...record, ...FIXED }, template.designs[record.kind], template.stock, { footer });
  const digest = hash('sha256', JSON.stringify([template.stock, content], bytesAsDigest), 'base64url').slice(0, 27);
  return `${FORM}:${record.kind}:${digest}`;
}

/** The label kind a fingerprint of this form was made for; undefined for another form. */
export function fingerprintKind(fingerprint: string): LabelKind | undefined {
  const [form, kind] = fingerprint.split(':');
  return form === FORM && isLabelKind(kind) ? kind : undefined;
}

/**
 * A logo's bitmap rows by their digest: JSON.stringify writes a Uint8Array as an
 * object with a member per byte, which for the largest logo took the event loop
 * tens of ms a preview and made keys hundreds of KB long.
 */
export function bytesAsDigest(_key: string, value: unknown): unknown {
  return value instanceof Uint8Array ? `sha256:${hash('sha256', value, 'base64url')}` : value;
}
