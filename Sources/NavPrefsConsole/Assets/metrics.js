// Reading /metrics (Prometheus' text format) and drawing small charts of it as SVG.
const SVG = 'http://www.w3.org/2000/svg';

/** The samples of a Prometheus text exposition: [{name, labels: {...}, value}]. */
export function parseMetrics(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels = {};
    for (const pair of (match[3] || '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]] = pair[2];
    samples.push({ name: match[1], labels, value: Number(match[4]) });
  }
  return samples;
}

/** The sum of the samples named `name` that `keep` accepts. */
export function total(samples, name, keep = () => true) {
  return samples.filter((sample) => sample.name === name && keep(sample.labels)).reduce((sum, sample) => sum + sample.value, 0);
}

/** A sparkline of `values` (oldest first) filling a 240×56 box, with its area shaded. */
export function sparkline(values, { color = '#007aff', fromZero = true } = {}) {
  const width = 240;
  const height = 56;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('aria-hidden', 'true');
  const baseline = document.createElementNS(SVG, 'line');
  for (const [name, value] of Object.entries({ x1: 0, x2: width, y1: height - 0.5, y2: height - 0.5, stroke: '#d1d1d6', 'stroke-width': 1 })) {
    baseline.setAttribute(name, String(value));
  }
  svg.append(baseline);
  if (values.length < 2) return svg;
  // Rates and counts from zero; a level such as memory from a little below its lowest value.
  const low = fromZero ? 0 : Math.min(...values) * 0.98;
  const span = Math.max(Math.max(...values) - low, 1e-9);
  const step = width / (values.length - 1);
  const points = values.map((value, index) => [index * step, height - 3 - ((value - low) / span) * (height - 8)]);
  const line = points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ');
  const area = document.createElementNS(SVG, 'polygon');
  area.setAttribute('points', `0,${height} ${line} ${width},${height}`);
  area.setAttribute('fill', color);
  area.setAttribute('fill-opacity', '0.12');
  const stroke = document.createElementNS(SVG, 'polyline');
  stroke.setAttribute('points', line);
  stroke.setAttribute('fill', 'none');
  stroke.setAttribute('stroke', color);
  stroke.setAttribute('stroke-width', '2');
  stroke.setAttribute('stroke-linejoin', 'round');
  stroke.setAttribute('vector-effect', 'non-scaling-stroke');
  svg.append(area, stroke);
  return svg;
}
