/**
 * What a printer says about itself (issue 31): the spec's `PrinterStatus` and
 * `PrinterMedia` schemas, so what the drivers read is what the API shows.
 */
import type { components } from '../../../generated/openapi.js';

export type PrinterStatus = components['schemas']['PrinterStatus'];
/** ready: can print now. printing: busy but fine. attention: needs a person. offline: not reachable. unknown: its protocol cannot tell. */
export type PrinterState = PrinterStatus['state'];
/** One of the spec's reason keywords (IPP-style, without a severity suffix). */
export type PrinterReason = PrinterStatus['reasons'][number];
/** The roll or labels loaded, as far as the printer tells. */
export type PrinterMedia = NonNullable<components['schemas']['PrinterMedia']>;
