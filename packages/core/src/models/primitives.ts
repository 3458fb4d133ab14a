import { z } from "zod";

/** A string that is valid Unicode (no lone surrogates), so every backend can store it faithfully. */
export const TextSchema = z
  .string()
  .refine((s) => s.isWellFormed(), "string contains a lone surrogate");

/** Ids are strings of 1–256 characters. */
export const IdSchema = z
  .string({ error: "id must be a string" })
  .min(1, "id must not be empty")
  .max(256, "id must be at most 256 characters")
  .refine((s) => s.isWellFormed(), "id contains a lone surrogate");

/** Integer epoch milliseconds (0 … Number.MAX_SAFE_INTEGER). */
export const TimestampSchema = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** A finite number ≥ 0. */
export const NonNegativeSchema = z.number().min(0).max(Number.MAX_VALUE);

/** An integer ≥ 0. */
export const CountSchema = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** A finite number (any sign). */
export const FiniteSchema = z.number().min(-Number.MAX_VALUE).max(Number.MAX_VALUE);

export const StringListSchema = z.array(TextSchema);

/** A conversation's status: free text of 1–64 characters (`"active"` by default). */
export const StatusSchema = TextSchema.min(1, "status must not be empty").max(
  64,
  "status must be at most 64 characters",
);
