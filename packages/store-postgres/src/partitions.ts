/**
 * A schema's layout: `null` for the default one (plain tables), or the number of hash partitions
 * of the partitioned one (`sql/partitioned-layout.ts`). Chosen by the `partitions` key when the
 * schema is created; afterwards read from the catalog.
 */
export type Partitions = number | null;
