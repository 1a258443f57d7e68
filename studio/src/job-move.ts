/**
 * A held job (queued with `heldReason`: its printer cannot print it now) says why, and can
 * be moved to another printer (movePrintJob), where it prints at once if that one can. The
 * one way the studio shows and moves a held job: the job box and the job list.
 */
import { failureText, type PrintJob, type Studio } from './api.js';
import { el } from './dom.js';
import { fleet } from './printers.js';

/** The printer chosen in each job's move list, kept while the list is redrawn (it is every 2 s while jobs wait). */
const picked = new Map<string, string>();

export const isHeld = (job: PrintJob): boolean => job.state === 'queued' && job.cancelledAt === null && Boolean(job.heldReason);

/** "Held: Lab printer has … loaded; this label needs …" */
export const heldLine = (job: PrintJob): HTMLParagraphElement => el('p', { className: 'held-reason' }, `Held, not printing: ${job.heldReason ?? ''}`);

/**
 * "Move to [printer] [Move]" for a held job, or null when no other printer is known. `moved`
 * gets what happened in words; `failed` why it did not.
 */
export function moveControl(api: Studio, job: PrintJob, where: 'box' | 'list', moved: (what: string) => Promise<void>, failed: (err: unknown) => void): HTMLElement | null {
  // The fleet was read for the label in view: whether each can print it says something only of that label's job (the box's).
  const others = fleet()
    .filter((p) => p.name !== job.printer)
    .map((p) => (where === 'box' ? p : { ...p, canPrint: undefined }));
  if (others.length === 0) return null;
  const id = `move-${where}-${job.id}`;
  const select = el('select', { id }, ...others.map((p) => el('option', { value: p.name }, `${p.title}${p.canPrint === false ? ' (cannot print this label now)' : ''}`)));
  select.dataset.focusKey = `move-to:${job.id}`;
  const kept = picked.get(job.id);
  // Preselected: the one kept, else the first that can print the label in view.
  select.value = kept && others.some((p) => p.name === kept) ? kept : (others.find((p) => p.canPrint !== false)?.name ?? others[0]!.name);
  select.addEventListener('change', () => picked.set(job.id, select.value));
  const button = el('button', { type: 'button', className: 'secondary' }, 'Move');
  button.setAttribute('aria-label', `Move ${job.title} to the printer chosen`);
  button.dataset.focusKey = `move:${job.id}`;
  button.addEventListener('click', () => {
    button.disabled = true;
    const to = others.find((p) => p.name === select.value);
    void api
      .movePrintJob(job.id, select.value)
      .then(async (now) => {
        picked.delete(job.id);
        await moved(now.heldReason ? `${job.title} moved to ${to?.title ?? select.value}, and held there too: ${now.heldReason}` : `${job.title} moved to ${to?.title ?? select.value}; it prints there.`);
      })
      .catch((err: unknown) => {
        button.disabled = false;
        failed(err);
      });
  });
  return el('div', { className: 'move' }, el('label', { htmlFor: id }, 'Move to'), select, button);
}

export const moveFailed = (job: PrintJob, err: unknown): string => `${job.title}: ${failureText(err, 'not moved.')}`;
