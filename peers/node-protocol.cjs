'use strict';
/**
 * Harness protocol v3 for the Node peers (stdlib only): JSON lines on stdin/stdout.
 *
 * Each peer's harness.cjs calls `serve(__dirname, library, run, {features, whole})`, where
 * `run(wire, baseUrl, request)` makes one streaming request with the peer's library, asking
 * what `request` says (the tools to declare; `n`, `include_usage`, `thinking`, `betas` when
 * the case needs them), and resolves to an outcome; `features` maps a wire to the request
 * features the library's documented API can express (the kit serves no case needing
 * another); `whole` maps a wire to a function like `run` that makes the library's documented
 * non-streaming call for the same request (the kit asks it when a stream fails, to tell a
 * stream bug from the library's contract). This module answers `start` from the peer's peer.json, the installed library's
 * own package.json and the features, runs one
 * request at a time in order, turns anything the library throws into `outcome.error`, and
 * exits 0 on `stop` or at the end of stdin. Logs go to stderr, never to stdout.
 */
const fs = require('fs');
const path = require('path');
const readline = require('readline');

const PROTOCOL_VERSION = 3;
const START_VERSION = 1; // the start line every protocol version shares

/**
 * Where `name` resolves for the peer in `peerDir`: through NODE_PATH when it is set there,
 * else in the peer's own environment `.peers/<peer>/node_modules` at the repository root,
 * so that `node peers/<peer>/harness.cjs` runs from any directory.
 */
function resolvePeer(peerDir, name) {
  try {
    return require.resolve(name);
  } catch (err) {
    if (err.code !== 'MODULE_NOT_FOUND') throw err;
  }
  const env = path.resolve(peerDir, '..', '..', '.peers', path.basename(peerDir));
  try {
    return require.resolve(name, {paths: [env]});
  } catch (err) {
    if (err.code !== 'MODULE_NOT_FOUND') throw err;
    throw new Error(`${path.basename(peerDir)}: cannot find ${name} on NODE_PATH nor in ` +
      `${env}/node_modules (install it: copy package.json and package-lock.json there, ` +
      'then run npm ci in it)');
  }
}

/**
 * The peer's library `name`, loaded as its users load it (`require`). A library that is
 * not installed ends the harness at once with one line on stderr (the kit quotes it).
 */
function requirePeer(peerDir, name) {
  let resolved;
  try {
    resolved = resolvePeer(peerDir, name);
  } catch (err) {
    process.stderr.write(`harness: ${err.message}\n`);
    process.exit(1);
  }
  return require(resolved);
}

/** The version in the package.json of `name` as the peer resolves it. */
function installedVersion(peerDir, name) {
  let dir = path.dirname(resolvePeer(peerDir, name));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (pkg.name === name) return pkg.version;
    }
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new Error(`no package.json named ${name} above ${resolvePeer(peerDir, name)}`);
    }
    dir = parent;
  }
}

/** The peer's description from peer.json, with the versions it runs. */
function implementation(peerDir, version) {
  const peer = JSON.parse(fs.readFileSync(path.join(peerDir, 'peer.json'), 'utf8'));
  return {name: peer.name, language: peer.language, version, homepage: peer.homepage,
    wires: peer.wires};
}

/** `Type: message` for anything thrown (a library's own error classes keep their names). */
function errorText(err) {
  if (err instanceof Error || (err && typeof err === 'object' && 'message' in err)) {
    const type = (err.constructor && err.constructor.name !== 'Object' && err.constructor.name)
      || err.name || 'Error';
    return `${type}: ${err.message}`;
  }
  return `thrown: ${String(err)}`;
}

/** The outcome of a run that ended in `err` before any result existed. */
function failed(err) {
  return {calls: [], text: '', message: null, error: errorText(err)};
}

/**
 * JSON text that goes into the reply line as it is. Arguments a library hands over as text
 * are written as their own text, not parsed and written again: JSON.parse would turn 1.0
 * into 1 and round integers beyond 2**53, numbers the library never produced.
 */
class RawJson {
  constructor(text) {
    this.text = text.replace(/[\r\n]/g, ' '); // JSON strings hold no raw line breaks
  }
}

/**
 * `arguments` text as the outcome holds it: the JSON object (its own text), else the raw
 * string. An empty text is `{}`, as the wires define it (a tool without parameters).
 */
function argumentsOf(raw) {
  if (typeof raw !== 'string') return raw;
  if (raw === '') return {};
  let value;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return raw; // not JSON: the outcome keeps the raw string
  }
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  return isObject ? new RawJson(raw) : raw;
}

/** `base` (a case URL, with or without a trailing slash) with `suffix` appended. */
function joinUrl(base, suffix) {
  return base.replace(/\/+$/, '') + '/' + suffix.replace(/^\/+/, '');
}

/** A plain JSON copy of a library object (drops undefined and non-enumerable fields). */
function plain(value) {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

/**
 * JSON text of `value` in which every number reads back as the same double. JSON.stringify
 * writes an integral double beyond 2**53 as integer digits (55812683738028900), which a
 * Python reader takes for an exact int that differs from the double the arguments held
 * (55812683738028896.0); such a number is written in exponent form instead. `RawJson`
 * goes in as its own text.
 */
function toJson(value) {
  if (value instanceof RawJson) return value.text;
  if (typeof value === 'number') {
    return Number.isInteger(value) && !Number.isSafeInteger(value) ? value.toExponential()
      : JSON.stringify(value);
  }
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (typeof value.toJSON === 'function') return toJson(value.toJSON());
  const kept = (item) => item !== undefined && typeof item !== 'function' &&
    typeof item !== 'symbol';
  if (Array.isArray(value)) {
    return '[' + value.map((item) => (kept(item) ? toJson(item) : 'null')).join(',') + ']';
  }
  return '{' + Object.entries(value).filter(([, item]) => kept(item))
    .map(([key, item]) => JSON.stringify(key) + ':' + toJson(item)).join(',') + '}';
}

function send(stream, value) {
  stream.write(toJson(value) + '\n');
}

/**
 * Answer protocol v3 on stdin/stdout. `library` names the package whose version the peer
 * reports (or is a function returning that version string); `run(wire, baseUrl, request)`
 * resolves to an outcome; `features` maps a wire to the request features it can ask for;
 * `whole` a wire to its non-streaming call.
 */
function serve(peerDir, library, run,
  {input = process.stdin, output = process.stdout, features = {}, whole = {}} = {}) {
  const lines = readline.createInterface({input, crlfDelay: Infinity});
  let queue = Promise.resolve();
  let wires = null;
  const handle = async (line) => {
    if (!line.trim()) return;
    let request;
    try {
      request = JSON.parse(line);
    } catch (err) {
      process.stderr.write(`harness: ignoring a line that is not JSON: ${line.slice(0, 80)}\n`);
      return;
    }
    if (request.cmd === 'start') {
      if (request.version !== START_VERSION) {
        process.stderr.write(`harness: protocol version ${request.version} asked, ` +
          `this harness expects the start line of version ${START_VERSION}\n`);
      }
      const version = typeof library === 'function' ? library()
        : installedVersion(peerDir, library);
      const impl = implementation(peerDir, version);
      wires = impl.wires;
      const declared = Object.fromEntries(wires.map((wire) => [wire, [...(features[wire] || [])].sort()]));
      send(output, {ready: true, version: PROTOCOL_VERSION, implementation: impl, features: declared,
        non_streaming: wires.filter((wire) => wire in whole)});
    } else if (request.cmd === 'run') {
      let outcome;
      if (wires !== null && !wires.includes(request.wire)) {
        outcome = failed(new Error(`wire ${request.wire} is not one of ${wires.join(', ')}`));
      } else {
        const call = request.stream === false ? whole[request.wire] : run;
        try {
          if (!call) throw new Error(`harness: no non-streaming call on ${request.wire}`);
          outcome = await call(request.wire, request.base_url, request.request || {tools: []});
        } catch (err) {
          outcome = failed(err);
        }
      }
      send(output, {seq: request.seq, outcome});
    } else if (request.cmd === 'stop') {
      output.write('', () => process.exit(0));
    } else {
      process.stderr.write(`harness: unknown cmd ${JSON.stringify(request.cmd)} ignored\n`);
    }
  };
  lines.on('line', (line) => {
    queue = queue.then(() => handle(line)).catch((err) => {
      process.stderr.write(`harness: ${errorText(err)}\n`);
    });
  });
  // A library's stray rejection (a promise nobody awaited) is logged, never fatal: the
  // outcome of the run it belongs to already says what the awaited call returned.
  process.on('unhandledRejection', (err) => {
    process.stderr.write(`harness: unhandled rejection ${errorText(err)}\n`);
  });
  lines.on('close', () => {
    queue.then(() => process.exit(0));
  });
}

module.exports = {serve, toJson, failed, errorText, argumentsOf, joinUrl, plain, installedVersion,
  requirePeer};
