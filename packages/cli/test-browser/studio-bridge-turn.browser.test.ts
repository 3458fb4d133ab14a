import { join } from "node:path";
import { MessageStore } from "@message-store/core";
import "@message-store/json";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../test/support/cli.js";
import { type RunningStudio, startStudio } from "../test/support/studio.js";
import { HAS_CHROMIUM, launchChromium } from "./support/chromium.js";

const RESULT = '{"city":"Paris","sky":"sunny","temp":21}';

/**
 * A turn as the framework bridges write it: the tool call on the assistant message (no stored
 * result), the result as its own tool message, and a trace with the tool run but no cost.
 */
async function seedBridgeTurn(path: string): Promise<void> {
  const store = await MessageStore.initialize({ storage: "json", path });
  const now = Date.now() - 60_000;
  const base = { conversationId: "c-bridge", userId: "u-1" };
  try {
    await store.storeConversation({ id: "c-bridge", userId: "u-1", agentId: "ai-sdk" });
    await store.storeMessages([
      { ...base, id: "m1", role: "user", originalContent: "Weather in Paris?", timestamp: now },
      {
        ...base,
        id: "m2",
        role: "assistant",
        originalContent: "Let me check.",
        timestamp: now + 1,
        toolCalls: [{ toolCallId: "call-1", toolName: "weather", arguments: { city: "Paris" } }],
      },
      {
        ...base,
        id: "m3",
        role: "tool",
        originalContent: RESULT,
        toolCallId: "call-1",
        toolName: "weather",
        timestamp: now + 2,
      },
      { ...base, id: "m4", role: "assistant", originalContent: "Sunny, 21°C.", timestamp: now + 3 },
    ]);
    await store.storeTurnTrace({
      id: "t-bridge",
      messageId: "m4",
      conversationId: "c-bridge",
      agentId: "ai-sdk",
      timestamp: now + 3,
      totalTokens: 111,
      totalLatencyMs: 900,
      llmCalls: [
        {
          purpose: "agent_loop",
          model: "gpt-4.1",
          promptTokens: 30,
          completionTokens: 12,
          latencyMs: 400,
        },
        {
          purpose: "agent_loop",
          model: "gpt-4.1",
          promptTokens: 60,
          completionTokens: 9,
          latencyMs: 400,
        },
      ],
      toolTraces: [{ toolName: "weather", finalData: JSON.parse(RESULT), durationMs: null }],
    });
  } finally {
    await store.close();
  }
}

/** How far the header's content overflows it, and the right edge of its rightmost item, in px. */
async function headerFit(page: Page): Promise<{ overflow: number; right: number }> {
  const header = page.locator(".topbar");
  const overflow = await header.evaluate(
    (el: { scrollWidth: number; clientWidth: number }) => el.scrollWidth - el.clientWidth,
  );
  const rights = await page
    .locator(".topbar .brand, .topbar nav a, .topbar .store")
    .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right));
  return { overflow, right: Math.ceil(Math.max(...rights)) };
}

describe.skipIf(!HAS_CHROMIUM)("studio in Chromium on a turn written by a bridge", () => {
  const tmp = tempDir();
  let browser: Browser;
  let studio: RunningStudio;

  beforeAll(async () => {
    const path = join(tmp.dir, "bridge.json");
    await seedBridgeTurn(path);
    studio = await startStudio(["--store", `json:${path}`], { cwd: tmp.dir });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
    tmp.remove();
  });

  it("the header fits a 420 px wide window on every view", async () => {
    const page = await browser.newPage({ viewport: { width: 420, height: 800 } });
    await page.goto(studio.url);
    for (const view of ["/conversations", "/conversations/c-bridge", "/turns", "/usage"]) {
      await page.goto(`${studio.origin}${view}`);
      await page.locator(".topbar .store").waitFor();
      const fit = await headerFit(page);
      expect(fit.overflow, view).toBe(0);
      expect(fit.right, view).toBeLessThanOrEqual(420);
    }
    await page.goto(`${studio.origin}/conversations/c-bridge`);
    await page.locator(".transcript article").first().waitFor();
    await page.screenshot({ path: join(process.env.STUDIO_SHOTS ?? tmp.dir, "studio-420.png") });
    await page.close();
  });

  it("a tool result shows once in the transcript, linked from its call", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(studio.url);
    await page.goto(`${studio.origin}/conversations/c-bridge`);
    await page.locator(".transcript article").first().waitFor();
    const text = await page.locator(".transcript").textContent();
    expect(text!.split(RESULT).length - 1).toBe(1);
    const paired = page.locator('[data-message-id="m2"] .paired');
    expect(await paired.textContent()).toContain("result in m3");
    expect(await paired.locator("a").getAttribute("href")).toBe("#m-m3");
    expect(await page.locator('[data-message-id="m3"] pre').textContent()).toBe(RESULT);
    expect(await page.locator('[data-message-id="m4"] .turn-line').textContent()).toContain(
      "1 tool run",
    );
    await page.close();
  });

  it("the turn's waterfall shows its tool run, and its cost reads as unknown", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(studio.url);
    await page.goto(`${studio.origin}/turns/m4`);
    const chart = page.getByRole("img", { name: "waterfall of the turn" });
    await chart.locator("svg").waitFor();
    const labels = await chart.locator("svg text").allTextContents();
    expect(labels).toContain("tool · weather");
    expect(labels.filter((l) => l === "agent_loop · gpt-4.1")).toHaveLength(2);
    expect(await page.locator(".stats").textContent()).toContain("—");
    expect(await page.locator(".stats").textContent()).not.toContain("$0");
    await page.screenshot({
      path: join(process.env.STUDIO_SHOTS ?? tmp.dir, "studio-bridge-turn.png"),
      fullPage: true,
    });

    await page.goto(`${studio.origin}/usage?window=24h`);
    await page.getByTestId("total-cost").waitFor();
    expect(await page.getByTestId("total-cost").textContent()).toBe("—");
    await page.close();
  });
});
