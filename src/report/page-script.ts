import type {
  PageCanvas,
  PageContext2D,
  PageDocument,
  PageElement,
  PageMouseEvent,
  PageWindow,
} from './page-dom.js';
import type { ReportData } from './report-data.js';

/** A box in viewport pixels, as the page's test handle reports it. */
export interface PageBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * What the page leaves on `window.recourseReport`: the number of timeline rows and the viewport
 * boxes of what it drew, so a browser test (or a curious user) can find a bar and hover it.
 */
export interface PageHandle {
  rows: number;
  view(): { from: number; to: number };
  /** The viewport x of time `t` (ms since the first event) on the timeline. */
  xOf(t: number): number;
  /** Scrolls row `r` into view and returns its box. */
  rowBox(r: number): PageBox;
  /** The drawn items of row `r` (scrolled into view): kind, event id and box. */
  itemBoxes(r: number): Array<PageBox & { kind: string; event: number }>;
  /** The breaker state bands as drawn. */
  bands(): Array<PageBox & { dependency: string; state: string }>;
  /** The hover card text of event `e`. */
  card(e: number): string;
}

/**
 * The report page's script: draws the timeline (time axis, degradation lane, a breaker lane per
 * dependency, then one row per logical call, only the rows in view) on two canvases, shows an
 * event's card on hover and a failed call's explain tree on click, zooms (Ctrl/⌘/Shift + wheel or
 * the buttons) and pans (drag). It is written into the page with `Function.prototype.toString`,
 * so it uses nothing from outside its own body.
 */
export function pageMain(doc: PageDocument, win: PageWindow, data: ReportData): void {
  const ROW_H = 18;
  const LABEL_W = 240;
  const AXIS_H = 22;
  const LANE_H = 18;
  const RIGHT = 10;
  const S = data.strings;
  const E = data.events;
  const C = data.calls;
  const str = (i: number | undefined): string => (i === undefined || i < 0 ? '' : (S[i] ?? ''));
  const kind: Record<string, number> = {};
  data.kinds.forEach((k, i) => {
    kind[k] = i;
  });
  const el = (id: string): PageElement => {
    const found = doc.getElementById(id);
    if (found === null) throw new Error(`the report page has no #${id}`);
    return found;
  };
  const lanes = el('lanes') as PageCanvas;
  const rows = el('rows') as PageCanvas;
  const scroller = el('rows-scroll');
  const spacer = el('rows-spacer');
  const tooltip = el('tooltip');
  const panel = el('explain');
  const panelTitle = el('explain-title');
  const panelText = el('explain-text');
  const nRows = C.id.length;
  const view = { from: 0, to: data.span };
  let width = 800;
  let rowsH = 200;
  let lanesH = 0;

  const STATUS = ['#2e9d58', '#d89b00', '#d64545', '#9a9a9a', '#b8b8b8'];
  const STATUS_MARK = ['✔', '⚠', '✘', '⊘', '?'];
  const STATE = ['rgba(46,157,88,0.16)', '#d64545', '#e6a100', '#7d3c98', '#c8c8c8'];
  const LEVEL = ['rgba(46,157,88,0.16)', '#f1c40f', '#e67e22', '#d64545', '#8e1b1b'];

  const hue = (dep: number): number => {
    const name = str(dep);
    let h = 7;
    for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) % 360;
    return h;
  };
  const plotW = (): number => Math.max(50, width - LABEL_W - RIGHT);
  const x = (t: number): number => LABEL_W + ((t - view.from) / (view.to - view.from)) * plotW();
  const tAt = (px: number): number =>
    view.from + ((px - LABEL_W) / plotW()) * (view.to - view.from);
  const fmtT = (ms: number): string =>
    Math.abs(ms) < 1000
      ? `${ms.toFixed(0)} ms`
      : `${(ms / 1000).toFixed(Math.abs(ms) < 10_000 ? 2 : 1)} s`;
  const fmtMs = (ms: number): string =>
    ms < 10
      ? `${ms.toFixed(1)} ms`
      : ms < 10_000
        ? `${ms.toFixed(0)} ms`
        : `${(ms / 1000).toFixed(1)} s`;

  const card = (e: number): string => {
    const type = str(E.type[e]);
    const head = [type, str(E.dep[e]), `+${fmtT(E.t[e] ?? 0)}`, `log line ${E.line[e]}`]
      .filter((s) => s !== '')
      .join(' · ');
    const v = E.value[e] ?? -1;
    const value =
      v < 0 ? '' : type === 'retry' ? `next attempt in ${fmtMs(v)}` : `took ${fmtMs(v)}`;
    return [head, value, str(E.info[e])].filter((s) => s !== '').join('\n');
  };

  const size = (canvas: PageCanvas, w: number, h: number): PageContext2D => {
    const ratio = win.devicePixelRatio || 1;
    canvas.width = Math.round(w * ratio);
    canvas.height = Math.round(h * ratio);
    canvas.style.width = `${w}px`;
    canvas.style.height = `${h}px`;
    const ctx = canvas.getContext('2d');
    if (ctx === null) throw new Error('this browser cannot draw on a canvas');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    return ctx;
  };
  let lanesCtx: PageContext2D | undefined;
  let rowsCtx: PageContext2D | undefined;

  const layout = (): void => {
    width = Math.max(400, scroller.clientWidth || 800);
    lanesH = AXIS_H + LANE_H * (1 + data.breakerDeps.length) + 4;
    rowsH = Math.min(nRows * ROW_H, Math.max(180, Math.round(win.innerHeight * 0.62)));
    scroller.style.height = `${Math.max(rowsH, ROW_H)}px`;
    spacer.style.height = `${nRows * ROW_H}px`;
    lanesCtx = size(lanes, width, lanesH);
    rowsCtx = size(rows, width, Math.max(rowsH, ROW_H));
  };

  const niceStep = (range: number): number => {
    const rough = range / 8;
    const p = 10 ** Math.floor(Math.log10(rough));
    for (const m of [1, 2, 5, 10]) if (m * p >= rough) return m * p;
    return 10 * p;
  };

  const label = (ctx: PageContext2D, text: string, y: number, color = '#333'): void => {
    ctx.fillStyle = color;
    ctx.font = '12px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'left';
    ctx.fillText(text, 6, y, LABEL_W - 12);
  };

  const clipPlot = (ctx: PageContext2D, h: number): void => {
    ctx.beginPath();
    ctx.rect(LABEL_W, 0, plotW(), h);
    ctx.clip();
  };

  const laneBoxes: Array<PageBox & { dependency: string; state: string; band: number }> = [];

  const drawLanes = (): void => {
    const ctx = lanesCtx;
    if (ctx === undefined) return;
    ctx.clearRect(0, 0, width, lanesH);
    laneBoxes.length = 0;
    const step = niceStep(view.to - view.from);
    ctx.save();
    clipPlot(ctx, lanesH);
    ctx.strokeStyle = '#e4e4e4';
    ctx.lineWidth = 1;
    ctx.fillStyle = '#555';
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'center';
    for (let t = Math.ceil(view.from / step) * step; t <= view.to; t += step) {
      const px = Math.round(x(t)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(px, AXIS_H - 4);
      ctx.lineTo(px, lanesH);
      ctx.stroke();
      // the first label would be cut by the label column: start it at the tick instead
      ctx.textAlign = px - LABEL_W < 30 ? 'left' : 'center';
      ctx.fillText(`+${fmtT(t)}`, px + (px - LABEL_W < 30 ? 2 : 0), AXIS_H / 2);
    }
    // degradation level
    const ly = AXIS_H;
    for (let i = 0; i < data.levels.length; i++) {
      const s = data.levels[i]!;
      const next = data.levels[i + 1]?.t ?? data.span;
      const x0 = x(s.t);
      const x1 = x(next);
      ctx.fillStyle = LEVEL[Math.min(LEVEL.length - 1, s.level)] ?? '#ccc';
      ctx.fillRect(x0, ly + 2, Math.max(1, x1 - x0), LANE_H - 4);
      if (x1 - x0 > 40) {
        ctx.fillStyle = s.level > 0 ? '#fff' : '#2e6b45';
        ctx.textAlign = 'left';
        ctx.fillText(str(s.name), x0 + 4, ly + LANE_H / 2, x1 - x0 - 8);
      }
    }
    // breakers
    data.breakerDeps.forEach((dep, lane) => {
      const y = AXIS_H + LANE_H * (lane + 1);
      data.bands.forEach((b, bi) => {
        if (b.dep !== dep) return;
        const x0 = x(b.t0);
        const x1 = x(b.t1);
        ctx.fillStyle = STATE[b.state] ?? '#ccc';
        ctx.fillRect(x0, y + 2, Math.max(1, x1 - x0), LANE_H - 4);
        const state = data.states[b.state] ?? 'unknown';
        if (x1 - x0 > 44 && state !== 'closed') {
          ctx.fillStyle = '#fff';
          ctx.textAlign = 'left';
          ctx.fillText(state, x0 + 4, y + LANE_H / 2, x1 - x0 - 8);
        }
        laneBoxes.push({
          x: x0,
          y: y + 2,
          w: Math.max(1, x1 - x0),
          h: LANE_H - 4,
          dependency: str(dep),
          state,
          band: bi,
        });
      });
    });
    ctx.restore();
    label(
      ctx,
      data.levels.length > 0 ? 'degradation level' : 'degradation level (no changes)',
      ly + LANE_H / 2,
      '#555',
    );
    data.breakerDeps.forEach((dep, lane) => {
      label(ctx, `breaker ${str(dep)}`, AXIS_H + LANE_H * (lane + 1) + LANE_H / 2, '#555');
    });
  };

  const itemX = (i: number): [number, number] => {
    const x0 = x(C.items[i * 5 + 1] ?? 0);
    const x1 = x(C.items[i * 5 + 2] ?? 0);
    return [x0, Math.max(x1, x0)];
  };
  const itemRange = (r: number): [number, number] => [
    C.itemStart[r] ?? 0,
    r + 1 < nRows ? (C.itemStart[r + 1] ?? 0) : C.items.length / 5,
  ];

  const drawMark = (
    ctx: PageContext2D,
    k: number,
    px: number,
    mid: number,
    degraded: boolean,
  ): void => {
    ctx.beginPath();
    if (k === kind.stall || k === kind.timeout) {
      ctx.fillStyle = '#e08a00';
      ctx.moveTo(px, mid - 7);
      ctx.lineTo(px + 5, mid + 3);
      ctx.lineTo(px - 5, mid + 3);
      ctx.closePath();
      ctx.fill();
      if (k === kind.timeout) {
        ctx.strokeStyle = '#7a4b00';
        ctx.stroke();
      }
    } else if (k === kind.reject) {
      ctx.strokeStyle = '#b02a2a';
      ctx.lineWidth = 2;
      ctx.moveTo(px - 4, mid - 4);
      ctx.lineTo(px + 4, mid + 4);
      ctx.moveTo(px + 4, mid - 4);
      ctx.lineTo(px - 4, mid + 4);
      ctx.stroke();
    } else if (k === kind.hop) {
      ctx.strokeStyle = '#2f6fdb';
      ctx.lineWidth = 2;
      ctx.moveTo(px - 4, mid - 5);
      ctx.lineTo(px + 2, mid);
      ctx.lineTo(px - 4, mid + 5);
      ctx.stroke();
    } else if (k === kind.state) {
      ctx.fillStyle = '#222';
      ctx.fillRect(px - 1, mid - 7, 2, 14);
    } else {
      ctx.fillStyle =
        k === kind.served
          ? degraded
            ? '#d89b00'
            : '#2e9d58'
          : k === kind.invalid
            ? '#8e44ad'
            : '#666';
      ctx.arc(px, mid, 3.5, 0, Math.PI * 2);
      ctx.fill();
    }
    ctx.lineWidth = 1;
  };

  const drawRows = (): void => {
    const ctx = rowsCtx;
    if (ctx === undefined) return;
    const h = Math.max(rowsH, ROW_H);
    ctx.clearRect(0, 0, width, h);
    const top = scroller.scrollTop;
    const first = Math.max(0, Math.floor(top / ROW_H));
    const last = Math.min(nRows - 1, Math.ceil((top + h) / ROW_H));
    for (let r = first; r <= last; r++) {
      const y = r * ROW_H - top;
      const status = C.status[r] ?? 4;
      if (r % 2 === 1) {
        ctx.fillStyle = '#f7f7f7';
        ctx.fillRect(0, y, width, ROW_H);
      }
      if (status === 1 || status === 2) {
        ctx.fillStyle = status === 2 ? 'rgba(214,69,69,0.10)' : 'rgba(216,155,0,0.12)';
        ctx.fillRect(0, y, LABEL_W - 4, ROW_H);
      }
      const served = str(C.servedBy[r]);
      const name = str(C.name[r]);
      const text = `${STATUS_MARK[status] ?? '?'} #${r + 1} ${name}${served !== '' && served !== name ? ` → ${served}` : ''}${status === 1 ? ' (degraded)' : ''}`;
      label(
        ctx,
        text,
        y + ROW_H / 2,
        STATUS[status] === '#b8b8b8' ? '#777' : (STATUS[status] ?? '#333'),
      );
      ctx.save();
      clipPlot(ctx, h);
      const mid = y + ROW_H / 2;
      const [i0, i1] = itemRange(r);
      for (let i = i0; i < i1; i++) {
        const k = C.items[i * 5] ?? -1;
        const [x0, x1] = itemX(i);
        if (x1 < LABEL_W - 10 || x0 > width + 10) continue;
        if (k === kind.path) {
          ctx.fillStyle = `hsla(${hue(C.items[i * 5 + 3] ?? -1)}, 55%, 55%, 0.22)`;
          ctx.fillRect(x0, y + 2, Math.max(2, x1 - x0), ROW_H - 4);
        } else if (
          k === kind['attempt-ok'] ||
          k === kind['attempt-failed'] ||
          k === kind['attempt-cancelled']
        ) {
          ctx.fillStyle =
            k === kind['attempt-ok']
              ? '#2e9d58'
              : k === kind['attempt-failed']
                ? '#d64545'
                : '#9a9a9a';
          ctx.fillRect(x0, y + 5, Math.max(2, x1 - x0), ROW_H - 10);
        } else if (k === kind.backoff) {
          ctx.strokeStyle = '#777';
          ctx.setLineDash([3, 2]);
          ctx.beginPath();
          ctx.moveTo(x0, mid + 0.5);
          ctx.lineTo(Math.max(x0 + 2, x1), mid + 0.5);
          ctx.stroke();
          ctx.setLineDash([]);
        } else {
          drawMark(ctx, k, x0, mid, status === 1);
        }
      }
      ctx.restore();
    }
  };

  let pending = false;
  const draw = (): void => {
    if (pending) return;
    pending = true;
    win.requestAnimationFrame(() => {
      pending = false;
      drawLanes();
      drawRows();
    });
  };
  const drawNow = (): void => {
    drawLanes();
    drawRows();
  };

  // Hit testing: marks are drawn last, so the last item under the pointer is the one on top.
  const rowAt = (clientY: number): number => {
    const box = scroller.getBoundingClientRect();
    const r = Math.floor((clientY - box.top + scroller.scrollTop) / ROW_H);
    return r >= 0 && r < nRows ? r : -1;
  };
  const itemAt = (r: number, px: number): number => {
    const [i0, i1] = itemRange(r);
    let bar = -1;
    for (let i = i1 - 1; i >= i0; i--) {
      const [x0, x1] = itemX(i);
      const k = C.items[i * 5] ?? -1;
      const isBar =
        k === kind.path ||
        k === kind.backoff ||
        k === kind['attempt-ok'] ||
        k === kind['attempt-failed'] ||
        k === kind['attempt-cancelled'];
      const slack = isBar ? 1 : 5;
      if (px < x0 - slack || px > x1 + slack) continue;
      if (!isBar) return i;
      if (bar < 0 || (C.items[bar * 5] ?? 0) === kind.path) bar = i;
    }
    return bar;
  };
  const callCard = (r: number): string => {
    const status = data.statuses[C.status[r] ?? 4] ?? 'unknown';
    const start = C.start[r] ?? 0;
    const lines = [
      `call #${r + 1} · ${str(C.id[r])}`,
      `${status}${str(C.servedBy[r]) === '' ? '' : ` · served by ${str(C.servedBy[r])}`}`,
      `+${fmtT(start)} for ${fmtMs((C.end[r] ?? start) - start)} · ${C.requests[r]} request(s)`,
    ];
    if (status === 'failed') lines.push('click for why it failed (explain)');
    return lines.join('\n');
  };
  const show = (text: string, e: PageMouseEvent): void => {
    tooltip.textContent = text;
    tooltip.hidden = false;
    tooltip.style.left = `${Math.min(e.clientX + 14, Math.max(0, width - 380))}px`;
    tooltip.style.top = `${e.clientY + 16}px`;
  };
  const hide = (): void => {
    tooltip.hidden = true;
  };

  let drag: { x: number; from: number; to: number; moved: boolean } | undefined;
  // The card for what is under the pointer, or undefined for nothing.
  const hoverText = (
    e: PageMouseEvent,
    canvas: PageCanvas,
    isRows: boolean,
  ): string | undefined => {
    const box = canvas.getBoundingClientRect();
    const px = e.clientX - box.left;
    if (isRows) {
      const r = rowAt(e.clientY);
      if (r < 0) return undefined;
      if (px < LABEL_W) return callCard(r);
      const i = itemAt(r, px);
      if (i < 0) return undefined;
      const ev = C.items[i * 5 + 4] ?? -1;
      const what = data.kinds[C.items[i * 5] ?? 0] ?? '';
      if (ev < 0) return what;
      const prefix =
        what === 'path'
          ? `path ${str(C.items[i * 5 + 3])} — `
          : what === 'backoff'
            ? 'backoff after — '
            : '';
      return `${prefix}${card(ev)}\ncall ${str(C.id[r])}`;
    }
    const py = e.clientY - box.top;
    const hit = laneBoxes.findLast(
      (b) => px >= b.x - 1 && px <= b.x + b.w + 1 && py >= b.y - 2 && py <= b.y + b.h + 2,
    );
    if (hit !== undefined) {
      const band = data.bands[hit.band]!;
      const head = `breaker ${hit.dependency}: ${hit.state} from +${fmtT(band.t0)} for ${fmtMs(band.t1 - band.t0)}`;
      return band.event >= 0
        ? `${head}\n${card(band.event)}`
        : `${head}\n(the state before the log's first change)`;
    }
    if (py >= AXIS_H && py < AXIS_H + LANE_H && px >= LABEL_W) {
      const t = tAt(px);
      const step = data.levels.findLast((s) => s.t <= t);
      if (step !== undefined)
        return `degradation level ${step.level}: ${str(step.name)}${step.event >= 0 ? `\n${card(step.event)}` : ''}`;
    }
    return undefined;
  };
  const onMove = (e: PageMouseEvent, canvas: PageCanvas, isRows: boolean): void => {
    if (drag !== undefined) {
      const dx = e.clientX - drag.x;
      if (Math.abs(dx) > 3) drag.moved = true;
      if (drag.moved) {
        const dt = (dx / plotW()) * (drag.to - drag.from);
        view.from = drag.from - dt;
        view.to = drag.to - dt;
        hide();
        draw();
        return;
      }
    }
    const text = hoverText(e, canvas, isRows);
    if (text === undefined) hide();
    else show(text, e);
  };

  const openExplain = (r: number): void => {
    if ((C.explain[r] ?? -1) < 0) {
      panel.hidden = true;
      return;
    }
    panelTitle.textContent = `Call #${r + 1} (${str(C.id[r])}) failed — why`;
    panelText.textContent = str(C.explain[r]);
    panel.hidden = false;
  };

  const zoom = (factor: number, at: number): void => {
    const t = Math.min(view.to, Math.max(view.from, at));
    const range = Math.max(0.5, (view.to - view.from) * factor);
    const share = (t - view.from) / (view.to - view.from);
    view.from = t - share * range;
    view.to = view.from + range;
    draw();
  };

  for (const [canvas, isRows] of [
    [rows, true],
    [lanes, false],
  ] as const) {
    canvas.addEventListener('mousemove', (e) => onMove(e, canvas, isRows));
    canvas.addEventListener('mouseleave', () => {
      hide();
    });
    canvas.addEventListener('mousedown', (e) => {
      if (e.button !== 0) return;
      drag = { x: e.clientX, from: view.from, to: view.to, moved: false };
    });
    canvas.addEventListener(
      'wheel',
      (e) => {
        if (!(e.ctrlKey || e.metaKey || e.shiftKey)) return;
        e.preventDefault();
        const box = canvas.getBoundingClientRect();
        zoom(e.deltaY > 0 ? 1.25 : 0.8, tAt(e.clientX - box.left));
      },
      { passive: false },
    );
  }
  rows.addEventListener('click', (e) => {
    if (drag?.moved === true) return;
    const r = rowAt(e.clientY);
    if (r >= 0) openExplain(r);
  });
  doc.addEventListener('mouseup', () => {
    // A click event follows this mouseup: keep `moved` for it, then forget the drag.
    const d = drag;
    win.requestAnimationFrame(() => {
      if (drag === d) drag = undefined;
    });
  });
  el('explain-close').addEventListener('click', () => {
    panel.hidden = true;
  });
  el('zoom-in').addEventListener('click', () => zoom(0.5, (view.from + view.to) / 2));
  el('zoom-out').addEventListener('click', () => zoom(2, (view.from + view.to) / 2));
  el('zoom-reset').addEventListener('click', () => {
    view.from = 0;
    view.to = data.span;
    draw();
  });
  scroller.addEventListener('scroll', () => {
    hide();
    draw();
  });
  win.addEventListener('resize', () => {
    layout();
    drawNow();
  });

  const viewportBox = (canvas: PageCanvas, b: PageBox): PageBox => {
    const box = canvas.getBoundingClientRect();
    return { x: box.left + b.x, y: box.top + b.y, w: b.w, h: b.h };
  };
  const handle: PageHandle = {
    rows: nRows,
    view: () => ({ from: view.from, to: view.to }),
    xOf: (t) => rows.getBoundingClientRect().left + x(t),
    rowBox: (r) => {
      const top = r * ROW_H;
      if (top < scroller.scrollTop || top + ROW_H > scroller.scrollTop + rowsH)
        scroller.scrollTop = Math.max(0, top - rowsH / 2);
      drawNow();
      return viewportBox(rows, { x: 0, y: top - scroller.scrollTop, w: width, h: ROW_H });
    },
    itemBoxes: (r) => {
      const row = handle.rowBox(r);
      const [i0, i1] = itemRange(r);
      const out: Array<PageBox & { kind: string; event: number }> = [];
      for (let i = i0; i < i1; i++) {
        const [x0, x1] = itemX(i);
        const box = rows.getBoundingClientRect();
        out.push({
          kind: data.kinds[C.items[i * 5] ?? 0] ?? '',
          event: C.items[i * 5 + 4] ?? -1,
          x: box.left + x0,
          y: row.y + 4,
          w: Math.max(2, x1 - x0),
          h: ROW_H - 8,
        });
      }
      return out;
    },
    bands: () =>
      laneBoxes.map((b) => ({
        ...viewportBox(lanes, b),
        dependency: b.dependency,
        state: b.state,
      })),
    card,
  };
  win.recourseReport = handle;

  el('timeline').setAttribute('data-rows', String(nRows));
  layout();
  drawNow();
}
