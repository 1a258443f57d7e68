/**
 * The deployment's custom fields (listFields) as the designer offers them, and the
 * placeholder each inserts (docs/labels-and-templates.md: dates and numbers with a format).
 */

/** A declared custom field, as the designer offers it. */
export interface OfferedField {
  name: string;
  title: string;
  type: 'text' | 'number' | 'date' | 'url';
}

/** The placeholder the designer inserts for a field. */
export function fieldPlaceholder(f: OfferedField): string {
  return f.type === 'date' ? `{${f.name}|date:medium}` : f.type === 'number' ? `{${f.name}|number}` : `{${f.name}}`;
}
