/** Distinct values one label may take before further ones are counted as `other`. */
export const MAX_LABEL_VALUES = 100;
/** The longest label value kept; a longer one is cut. */
export const MAX_LABEL_LENGTH = 80;
export const OTHER = 'other';

/**
 * Keeps every label bounded: each series lives as long as the process, so an
 * unbounded label (a raw path, a model name a caller chose) would be a memory
 * leak and a scrape that grows without end. The first MAX_LABEL_VALUES
 * distinct values of a label are kept as they are (cut to MAX_LABEL_LENGTH
 * characters); any later new value is `other`.
 */
export class BoundedLabels {
  private readonly seen = new Map<string, Set<string>>();

  constructor(private readonly maxValues = MAX_LABEL_VALUES) {}

  of(label: string, value: string): string {
    let values = this.seen.get(label);
    if (!values) this.seen.set(label, (values = new Set()));
    if (values.has(value)) return value;
    const cut = value.length > MAX_LABEL_LENGTH ? value.slice(0, MAX_LABEL_LENGTH) : value;
    if (values.has(cut)) return cut;
    if (values.size >= this.maxValues) return OTHER;
    values.add(cut);
    return cut;
  }
}
