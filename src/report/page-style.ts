/** The report page's stylesheet (inline: the page fetches nothing). */
export const PAGE_STYLE = `
:root { color-scheme: light; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; }
body { margin: 0 auto; padding: 16px 24px 40px; max-width: 1600px; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; } h3 { font-size: 14px; margin: 16px 0 6px; }
.muted { color: #777; font-weight: normal; }
.note { background: #fff7e0; border: 1px solid #f0d68a; border-radius: 6px; padding: 8px 12px; margin: 8px 0; }
.note ul { margin: 4px 0 0 18px; padding: 0; }
.bad { color: #c0392b; }
code { background: #f2f2f2; border-radius: 3px; padding: 0 3px; }
#timeline { border: 1px solid #ddd; border-radius: 6px; overflow: hidden; position: relative; user-select: none; }
#lanes { display: block; border-bottom: 1px solid #ddd; }
#rows-scroll { overflow-y: auto; overflow-x: hidden; position: relative; }
#rows-spacer { position: relative; }
#rows { position: sticky; top: 0; display: block; }
canvas { cursor: crosshair; }
.controls { margin: 6px 0; display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
.controls button { font: inherit; padding: 2px 10px; border: 1px solid #ccc; background: #fafafa; border-radius: 4px; cursor: pointer; }
.legend { display: flex; gap: 14px; flex-wrap: wrap; font-size: 12px; color: #555; }
.legend i { display: inline-block; width: 14px; height: 10px; margin-right: 5px; vertical-align: -1px; border-radius: 2px; }
.legend .path { background: hsla(200, 55%, 55%, 0.3); } .legend .ok { background: #2e9d58; } .legend .failed { background: #d64545; }
.legend .backoff { border-top: 2px dashed #777; height: 0; } .legend .stall { background: #e08a00; clip-path: polygon(50% 0, 100% 100%, 0 100%); }
.legend .reject { background: #b02a2a; clip-path: polygon(20% 0, 50% 30%, 80% 0, 100% 20%, 70% 50%, 100% 80%, 80% 100%, 50% 70%, 20% 100%, 0 80%, 30% 50%, 0 20%); }
.legend .hop { background: #2f6fdb; clip-path: polygon(0 0, 100% 50%, 0 100%); } .legend .state { background: #222; width: 3px; }
.legend .served { background: #2e9d58; border-radius: 50%; width: 10px; }
#tooltip { position: fixed; z-index: 10; max-width: 360px; white-space: pre-wrap; word-break: break-word; background: #1f2328; color: #f6f8fa; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; padding: 8px 10px; border-radius: 6px; pointer-events: none; box-shadow: 0 4px 14px rgba(0,0,0,.25); }
#explain { margin-top: 10px; border: 1px solid #e3b4b4; background: #fff5f5; border-radius: 6px; padding: 8px 12px; }
#explain .explain-head { display: flex; justify-content: space-between; align-items: center; }
#explain h3 { margin: 0; color: #a93226; }
#explain button { font-size: 18px; border: none; background: none; cursor: pointer; }
#explain pre { white-space: pre-wrap; font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; margin: 8px 0 0; }
table { border-collapse: collapse; margin: 4px 0 8px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #e2e2e2; padding: 3px 10px; text-align: right; } th { background: #f6f6f6; font-weight: 600; } th[scope=row] { text-align: left; }
.histograms { display: flex; flex-wrap: wrap; gap: 16px; }
figure { margin: 0; } figcaption { font-weight: 600; margin-bottom: 2px; }
.histogram .ok { fill: #2e9d58; } .histogram .bad { fill: #d64545; } .histogram .axis { stroke: #999; }
.histogram .quantile { stroke: #2f6fdb; stroke-dasharray: 3 2; } .histogram .tick { font-size: 10px; fill: #666; } .histogram .muted { fill: #999; font-size: 12px; }
footer { margin-top: 32px; font-size: 12px; }
`;
