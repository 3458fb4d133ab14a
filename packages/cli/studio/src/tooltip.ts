/**
 * Chart tooltip content as text. ECharts inserts a formatter's string as HTML, and the labels
 * shown (tool names, models) are written by model output; a DOM element built with
 * `textContent` keeps them text. One line per entry.
 */
export function textTooltip(lines: string[]): HTMLElement {
  const box = document.createElement("div");
  for (const line of lines) {
    const row = document.createElement("div");
    row.textContent = line;
    box.append(row);
  }
  return box;
}
