/** The seam between the API and printing: the API hands over a rendered label. */
import type { PresetName } from '../labels/index.js';
import type { LabelContent } from '../labels/types.js';

export interface PrintRequest {
  png: Buffer;
  content: LabelContent;
  template: PresetName;
  /** Id of the API token that asked, for idempotency and audit. */
  tokenId: string;
}

export interface PrintQueue {
  /** Stores the job durably and returns its id; delivery happens later. */
  submit(request: PrintRequest): Promise<{ jobId: string }>;
}
