// Jest runs tests in a separate vm realm; onnxruntime-node hands back typed arrays from the main
// realm, so `instanceof Float32Array` fails inside tests. Share the typed-array constructors.
const { TestEnvironment } = require('jest-environment-node');

const SHARED = [
  'ArrayBuffer',
  'SharedArrayBuffer',
  'DataView',
  'Float32Array',
  'Float64Array',
  'Int8Array',
  'Int16Array',
  'Int32Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Uint16Array',
  'Uint32Array',
  'BigInt64Array',
  'BigUint64Array',
];

module.exports = class OnnxFriendlyEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const k of SHARED) this.global[k] = globalThis[k];
  }
};
