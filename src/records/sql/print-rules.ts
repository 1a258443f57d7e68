/**
 * Print rules (migration 22, table `print_rules`) for both stores, over a Runner each
 * dialect provides. `firePrintRules` is the print-rules consumer's commit
 * (src/events/print-rules.ts): inside ONE transaction it first moves the consumer's cursor
 * (advanceConsumer: compare and set under its lease) and then stores the rule's print
 * jobs, each under its idempotency key (`print-rule:<rule id>:<event id>`, per the rule's
 * token); a key already stored is skipped (ON CONFLICT DO NOTHING on the print queue's
 * UNIQUE (token_id, idempotency_key)). So a crash before the commit stores nothing and
 * moves nothing (the batch is read again); a crash after it moved the cursor with the jobs.
 */
import { isoTimestamp } from '../rows.js';
import type { ConsumerLease, NewPrintJob, PrintRule, PrintRuleTrigger } from '../types.js';
import { advanceConsumer } from './consumers.js';
import { PRINT_JOB_INSERT_COLUMNS, printJobValues } from './print-jobs.js';
import type { Runner } from './printers.js';

const COLUMNS = 'id, name, location_id, kinds, triggers, template, printer, token_id, created_at';

interface PrintRuleRow {
  id: string;
  name: string;
  location_id: string;
  kinds: string;
  triggers: string;
  template: string;
  printer: string | null;
  token_id: string;
  created_at: string;
}

function toRule(row: PrintRuleRow): PrintRule {
  return {
    id: row.id,
    name: row.name,
    locationId: row.location_id,
    kinds: row.kinds.split(',') as PrintRule['kinds'],
    triggers: row.triggers.split(',') as PrintRuleTrigger[],
    template: row.template,
    printer: row.printer,
    tokenId: row.token_id,
    createdAt: row.created_at,
  };
}

export async function listPrintRules(q: Pick<Runner, 'all'>): Promise<PrintRule[]> {
  return (await q.all<PrintRuleRow>(`SELECT ${COLUMNS} FROM print_rules ORDER BY created_at, id`)).map(toRule);
}

export async function getPrintRule(q: Pick<Runner, 'all' | 'dialect'>, id: string): Promise<PrintRule | undefined> {
  const [row] = await q.all<PrintRuleRow>(q.dialect.placeholders(`SELECT ${COLUMNS} FROM print_rules WHERE id = ?`), [id]);
  return row && toRule(row);
}

export async function createPrintRule(q: Runner, rule: PrintRule): Promise<PrintRule> {
  await q.run(q.dialect.placeholders(`INSERT INTO print_rules (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`), [
    rule.id,
    rule.name,
    rule.locationId,
    rule.kinds.join(','),
    rule.triggers.join(','),
    rule.template,
    rule.printer,
    rule.tokenId,
    rule.createdAt,
  ]);
  return rule;
}

export async function deletePrintRule(q: Runner, id: string): Promise<boolean> {
  return (await q.run(q.dialect.placeholders('DELETE FROM print_rules WHERE id = ?'), [id])) === 1;
}

/** Call inside one transaction (see above). */
export async function firePrintRules(q: Runner, lease: ConsumerLease, leaseMs: number, jobs: readonly NewPrintJob[]): Promise<{ advanced: boolean; created: number }> {
  if (!(await advanceConsumer(q, lease, leaseMs))) return { advanced: false, created: 0 };
  const now = isoTimestamp(new Date());
  const insert = q.dialect.placeholders(
    `INSERT INTO print_jobs (${PRINT_JOB_INSERT_COLUMNS}) VALUES (${PRINT_JOB_INSERT_COLUMNS.split(',').map(() => '?').join(', ')}) ON CONFLICT (token_id, idempotency_key) DO NOTHING`,
  );
  let created = 0;
  for (const job of jobs) {
    if (job.idempotencyKey === null) throw new RangeError('a print rule job needs its idempotency key');
    created += await q.run(insert, printJobValues(job, now));
  }
  return { advanced: true, created };
}
