import { ValidationError, type ValidationIssue } from "@message-store/core";
import type { ModelMessage } from "ai";

const CONTENT_OF_ROLE = {
  system: "a string",
  user: "a string or an array of parts",
  assistant: "a string or an array of parts",
  tool: "an array of parts",
} as const;

function contentFits(role: keyof typeof CONTENT_OF_ROLE, content: unknown): boolean {
  if (role === "system") return typeof content === "string";
  if (role === "tool") return Array.isArray(content);
  return typeof content === "string" || Array.isArray(content);
}

/**
 * Checks that `messages` have the shape of AI SDK `ModelMessage`s before any is converted: a
 * known role, a content of the role's type, parts that are typed objects. Parts of a type this
 * bridge does not store are still skipped (as documented on `fromModelMessages`), so messages of
 * every `ai` major pass. Throws `ValidationError` naming the message's index and field, so a
 * message the bridge cannot store is refused, never silently dropped.
 */
export function assertModelMessages(messages: readonly unknown[], what = "messages"): void {
  messages.forEach((message, index) => {
    const at = `${what}[${index}]`;
    const refuse = (text: string, issues: ValidationIssue[]): never => {
      throw new ValidationError(`${at} is not an AI SDK ModelMessage: ${text}`, issues, {
        adapter: "ai-sdk",
      });
    };
    if (typeof message !== "object" || message === null || Array.isArray(message))
      refuse("expected an object", [{ path: [what, index], message: "expected an object" }]);
    const { role, content } = message as { role?: unknown; content?: unknown };
    if (typeof role !== "string" || !(role in CONTENT_OF_ROLE)) {
      const text = `role must be one of ${Object.keys(CONTENT_OF_ROLE).join(", ")} (got ${JSON.stringify(role) ?? "undefined"})`;
      refuse(text, [{ path: [what, index, "role"], message: text }]);
    }
    const known = role as keyof typeof CONTENT_OF_ROLE;
    if (!contentFits(known, content)) {
      const got = content === null ? "null" : Array.isArray(content) ? "array" : typeof content;
      const text = `the content of a ${known} message must be ${CONTENT_OF_ROLE[known]} (got ${got})`;
      refuse(text, [{ path: [what, index, "content"], message: text }]);
    }
    if (Array.isArray(content)) {
      const part = content.findIndex(
        (p) =>
          typeof p !== "object" || p === null || typeof (p as { type?: unknown }).type !== "string",
      );
      if (part >= 0) {
        const text = `content[${part}] must be an object with a string \`type\``;
        refuse(text, [{ path: [what, index, "content", part], message: text }]);
      }
    }
  });
}

/** `messages` as `ModelMessage[]` once {@link assertModelMessages} accepted them. */
export function checkedModelMessages(
  messages: readonly unknown[],
  what?: string,
): readonly ModelMessage[] {
  assertModelMessages(messages, what);
  return messages as readonly ModelMessage[];
}
