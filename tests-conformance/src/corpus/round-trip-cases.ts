import { MAX_JSON_DEPTH } from "@message-store/core";
import { type CorpusCase, roundTrips } from "./corpus-case.js";
import {
  controls,
  DOLLAR_KEYS,
  deep,
  escapes,
  everyString,
  nest,
  nul,
  records,
  sql,
  uni,
} from "./round-trip-records.js";

/** Legal but hostile inputs that every adapter must store and return exactly. */
export const ROUND_TRIP_CASES: CorpusCase[] = [
  roundTrips("a 10 MB content string", () =>
    records({ messages: [{ originalContent: "0123456789abcdef".repeat(655_360) }] }),
  ),
  roundTrips("NUL bytes in every string and JSON key", () => everyString(nul, false)),
  roundTrips("NUL bytes in every id", () => everyString(nul, true)),
  roundTrips("SQL injection in every string field, ids included", () => everyString(sql, true)),
  roundTrips(
    "unicode (emoji, ZWJ, astral, RTL, BOM, noncharacters) in every string, ids included",
    () => everyString(uni, true),
  ),
  roundTrips("control characters in every string", () => everyString(controls, false)),
  roundTrips("quotes, backslashes and template syntax in every string", () =>
    everyString(escapes, false),
  ),
  roundTrips("$-prefixed and dotted keys in every JSON object", () =>
    records({
      conversation: { metadata: DOLLAR_KEYS },
      messages: [
        {
          metadata: DOLLAR_KEYS,
          toolCalls: [
            { toolCallId: "c", toolName: "t", arguments: DOLLAR_KEYS, result: DOLLAR_KEYS },
          ],
        },
      ],
      trace: {
        metadata: DOLLAR_KEYS,
        slotEvents: [DOLLAR_KEYS],
        flowEvents: [DOLLAR_KEYS],
        errors: [DOLLAR_KEYS],
        toolTraces: [{ toolName: "t", finalData: [DOLLAR_KEYS] }],
      },
    }),
  ),
  roundTrips("constructor, prototype, toString and hasOwnProperty as JSON keys", () => {
    const keys = () => ({
      constructor: { prototype: 1 },
      prototype: null,
      toString: "x",
      hasOwnProperty: 0,
      valueOf: [],
    });
    return records({
      conversation: { metadata: keys() },
      messages: [
        {
          metadata: { nested: keys() },
          toolCalls: [{ toolCallId: "c", toolName: "t", arguments: keys(), result: keys() }],
        },
      ],
      trace: { errors: [keys()], toolTraces: [{ toolName: "t", finalData: keys() }] },
    });
  }),
  roundTrips(`JSON nested exactly ${MAX_JSON_DEPTH} levels deep in every JSON field`, () =>
    records({
      conversation: { metadata: nest(MAX_JSON_DEPTH) },
      messages: [
        {
          metadata: nest(MAX_JSON_DEPTH),
          toolCalls: [
            {
              toolCallId: "c",
              toolName: "t",
              arguments: nest(MAX_JSON_DEPTH),
              result: nest(MAX_JSON_DEPTH),
            },
          ],
        },
      ],
      trace: {
        metadata: nest(MAX_JSON_DEPTH),
        slotEvents: [nest(MAX_JSON_DEPTH)],
        flowEvents: [nest(MAX_JSON_DEPTH)],
        errors: [nest(MAX_JSON_DEPTH)],
        toolTraces: [{ toolName: "t", finalData: nest(MAX_JSON_DEPTH) }],
      },
    }),
  ),
  roundTrips("ids of exactly 256 characters (UTF-16 code units)", () =>
    records({
      conversation: { id: "c".repeat(256), userId: "😀".repeat(128), agentId: "é".repeat(256) },
      messages: [{ id: "m".repeat(256), episodeId: "e".repeat(256), toolCallId: "t".repeat(256) }],
      trace: { id: "🎉".repeat(128), agentId: "a".repeat(256), userId: "😀".repeat(128) },
    }),
  ),
  roundTrips("ids that differ only in whitespace", () =>
    records({
      conversation: { id: " ", userId: "\t" },
      messages: [{ id: "x" }, { id: "x " }, { id: " x" }, { id: "x\n" }],
      trace: { id: "  ", agentId: "agent " },
    }),
  ),
  roundTrips("timestamps at 0 and Number.MAX_SAFE_INTEGER", () =>
    records({
      conversation: { createdAt: 0, updatedAt: Number.MAX_SAFE_INTEGER },
      messages: [{ timestamp: 0 }, { timestamp: Number.MAX_SAFE_INTEGER }],
      trace: {
        timestamp: Number.MAX_SAFE_INTEGER,
        llmCalls: [
          {
            purpose: "other",
            model: "m",
            promptTokens: 0,
            completionTokens: 0,
            latencyMs: 0,
            startedAt: 0,
          },
        ],
      },
    }),
  ),
  roundTrips("sentimentScore at -1 and 1", () =>
    records({
      messages: [{ sentimentScore: -1 }, { sentimentScore: 1 }, { sentimentScore: 5e-324 }],
    }),
  ),
  roundTrips("float64 fidelity in every number field and in JSON", () => {
    const floats = [
      0.1 + 0.2,
      5e-324,
      Number.MAX_VALUE,
      -Number.MAX_VALUE,
      1e21,
      2 ** 53 - 1,
      -(2 ** 53 - 1),
      123456789.12345679,
      1 / 3,
    ];
    return records({
      conversation: { metadata: { floats } },
      messages: [
        {
          sentimentScore: 0.1 + 0.2,
          embedding: floats,
          metadata: { floats },
          toolCalls: [{ toolCallId: "c", toolName: "t", arguments: { floats }, result: floats }],
        },
      ],
      trace: {
        totalTokens: Number.MAX_SAFE_INTEGER,
        totalLatencyMs: 0.1 + 0.2,
        llmCalls: [
          {
            purpose: "other",
            model: "m",
            promptTokens: 2 ** 53 - 1,
            completionTokens: 0,
            latencyMs: 5e-324,
            costUsd: Number.MAX_VALUE,
          },
        ],
        toolTraces: [
          {
            toolName: "t",
            outputBytes: Number.MAX_SAFE_INTEGER,
            peakMemoryBytes: Number.MAX_VALUE,
            durationMs: 1 / 3,
            exitCode: -(2 ** 40),
            finalData: floats,
          },
        ],
        metadata: { floats },
      },
    });
  }),
  roundTrips("every JSON kind, and strings that look like JSON", () => {
    const kinds = {
      s: "null",
      n: "123",
      b: "true",
      o: "{}",
      a: "[]",
      q: '"quoted"',
      realNull: null,
      t: true,
      f: false,
      zero: 0,
      e: {},
      l: [],
      mixed: [[], {}, [[null]], ""],
    };
    return records({
      conversation: { metadata: kinds, title: "null" },
      messages: [
        {
          originalContent: "{}",
          metadata: kinds,
          toolCalls: [{ toolCallId: "c", toolName: "t", arguments: kinds, result: [kinds] }],
        },
      ],
      trace: {
        metadata: kinds,
        toolTraces: [
          { toolName: "t", finalData: "null" },
          { toolName: "u", finalData: [] },
          { toolName: "v", finalData: {} },
          { toolName: "w", finalData: 0 },
        ],
      },
    });
  }),
  roundTrips("empty strings wherever allowed, including an empty JSON key", () =>
    records({
      conversation: { title: "", tags: [""], metadata: { "": "" } },
      messages: [
        {
          originalContent: "",
          enhancedMessage: "",
          explicitContext: "",
          intent: "",
          sentiment: "",
          toolName: "",
          invokedFlows: [""],
          entities: [{ name: "e", attributes: [""] }],
          metadata: { "": { "": [""] } },
        },
      ],
      trace: {
        taskEmissions: [""],
        reasoningSteps: [""],
        toolTraces: [
          {
            toolName: "t",
            finalScript: "",
            stdout: "",
            traceback: "",
            finalData: "",
            generationAttempts: [{ attempt: 1, script: "", error: "" }],
          },
        ],
      },
    }),
  ),
  roundTrips("deeply nested and very wide JSON, long lists", () =>
    records({
      conversation: {
        tags: Array.from({ length: 10_000 }, (_, i) => `tag-${i}`),
        metadata: deep(30),
      },
      messages: [
        {
          metadata: Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i])),
          reasoningSteps: Array.from({ length: 1_000 }, (_, i) => `step ${i}`),
        },
      ],
      trace: { metadata: deep(30), errors: Array.from({ length: 500 }, (_, i) => ({ i })) },
    }),
  ),
  roundTrips("every message role", () =>
    records({
      messages: ["user", "assistant", "colleague_assistant", "system", "tool"].map((role) => ({
        role,
        ...(role === "tool" ? { toolCallId: "call-9", toolName: "lookup" } : {}),
      })),
    }),
  ),
];
