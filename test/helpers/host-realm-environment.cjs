// jest runs each test file in its own VM realm; onnxruntime-node rejects tensors
// whose typed arrays come from that realm ("A float32 tensor's data must be type
// of Float32Array"). Hand the host realm's constructors to the test realm.
const { TestEnvironment } = require('jest-environment-node');

class HostRealmEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of [
      'Float32Array',
      'Float64Array',
      'Int8Array',
      'Uint8Array',
      'Uint8ClampedArray',
      'Int16Array',
      'Uint16Array',
      'Int32Array',
      'Uint32Array',
      'BigInt64Array',
      'BigUint64Array',
      'ArrayBuffer',
      'SharedArrayBuffer',
      'DataView',
    ]) {
      this.global[name] = globalThis[name];
    }
  }
}

module.exports = HostRealmEnvironment;
