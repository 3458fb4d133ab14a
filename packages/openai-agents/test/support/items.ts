import type { AgentInputItem } from "@openai/agents";

/** A user message item with one text part. */
export function user(text: string): AgentInputItem {
  return { type: "message", role: "user", content: [{ type: "input_text", text }] };
}

/** An assistant message item with one output text part. */
export function answer(text: string): AgentInputItem {
  return {
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text }],
  };
}

/** A function call item. */
export function call(callId: string, name: string, args: object): AgentInputItem {
  return {
    type: "function_call",
    callId,
    name,
    status: "completed",
    arguments: JSON.stringify(args),
  };
}

/** A function call result item with a text output. */
export function result(callId: string, name: string, text: string): AgentInputItem {
  return {
    type: "function_call_result",
    callId,
    name,
    status: "completed",
    output: { type: "text", text },
  };
}

/** One item of every kind the SDK's protocol has, as a run of a busy agent would produce. */
export function everyItemKind(): AgentInputItem[] {
  return [
    { type: "message", role: "system", content: "Be brief." },
    { role: "user", content: "Plan a trip" },
    {
      type: "message",
      role: "user",
      content: [
        { type: "input_text", text: "Here is my passport:" },
        { type: "input_image", image: "https://example.com/passport.png", detail: "low" },
        { type: "input_file", file: { url: "https://example.com/ticket.pdf" } },
      ],
    },
    {
      type: "reasoning",
      id: "rs_1",
      content: [{ type: "input_text", text: "Flights first." }],
      rawContent: [{ type: "reasoning_text", text: "The user wants flights." }],
      providerData: { encrypted: "e1" },
    },
    call("f1", "flights", { to: "NYC" }),
    result("f1", "flights", '[{"id":"AF1"}]'),
    {
      type: "function_call_result",
      callId: "f2",
      name: "notes",
      status: "completed",
      output: "plain output",
    },
    {
      type: "hosted_tool_call",
      id: "ws_1",
      name: "web_search_call",
      arguments: '{"query":"NYC weather"}',
      status: "completed",
      output: "Sunny",
    },
    { type: "tool_search_call", id: "ts_1", callId: "ts1", arguments: { query: "hotel" } },
    {
      type: "tool_search_output",
      id: "tso_1",
      callId: "ts1",
      tools: [{ type: "function", name: "hotels" }],
    },
    {
      type: "computer_call",
      id: "cc_1",
      callId: "c1",
      status: "completed",
      action: { type: "click", x: 10, y: 20, button: "left" },
    },
    {
      type: "computer_call_result",
      callId: "c1",
      output: { type: "computer_screenshot", data: "data:image/png;base64,AAAA" },
    },
    {
      type: "shell_call",
      callId: "s1",
      status: "completed",
      action: { commands: ["ls -la"], timeoutMs: 1000 },
    },
    {
      type: "shell_call_output",
      callId: "s1",
      output: [{ stdout: "a.txt", stderr: "", outcome: { type: "exit", exitCode: 0 } }],
    },
    {
      type: "apply_patch_call",
      callId: "p1",
      status: "completed",
      operation: { type: "create_file", path: "trip.md", diff: "+NYC" },
    },
    { type: "apply_patch_call_output", callId: "p1", status: "completed", output: "created" },
    {
      type: "message",
      role: "assistant",
      status: "completed",
      content: [
        { type: "output_text", text: "Booked AF1. " },
        { type: "refusal", refusal: "No hotels." },
      ],
    },
    { type: "compaction", encrypted_content: "opaque", id: "cmp_1" },
    { type: "unknown", id: "u_1", providerData: { kind: "future" } },
  ] as AgentInputItem[];
}
