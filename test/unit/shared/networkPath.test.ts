// Attack install42: the Win32 long-path prefix `\\?\C:\…` and the device form `\\.\C:\…` name a local drive; only
// `\\?\UNC\server\…`, `\\.\UNC\server\…` and `\\server\…` reach another machine. The refusal names the server.
import { strict as assert } from 'node:assert';
import { isNetworkPath, networkPathServer, readRunSettings } from '../../../src/shared/runSettings';

const settingsWith = (path: string) => readRunSettings((k) => ({ 'xe.target': 'event_file', 'xe.eventFilePath': path })[k as string]);

describe('isNetworkPath: Win32 device paths (install42)', () => {
  it('a long-path prefix or device form of a drive or volume is local: used as the event file, nothing refused', () => {
    for (const p of ['\\\\?\\C:\\traces\\dl', '\\\\.\\C:\\traces\\dl', '//?/D:/x', '\\\\?\\c:', '\\\\?\\Volume{26a21bda-a627-11d7-9931-806e6f6e6963}\\traces\\dl']) {
      assert.equal(isNetworkPath(p), false, p);
      assert.deepEqual(settingsWith(p).xeTarget, { kind: 'event_file', path: p });
      assert.equal(settingsWith(p).xeTargetRefused, null, p);
    }
  });

  it('UNC in every form is network, with its server named in the refusal', () => {
    assert.deepEqual(networkPathServer('\\\\?\\UNC\\files01\\share\\dl'), { server: 'files01' });
    assert.deepEqual(networkPathServer('\\\\.\\unc\\files01\\share'), { server: 'files01' });
    assert.deepEqual(networkPathServer('\\\\files01\\share\\dl'), { server: 'files01' });
    const s = settingsWith('\\\\?\\UNC\\files01\\share\\dl');
    assert.deepEqual(s.xeTarget, { kind: 'ring_buffer' });
    assert.match(s.xeTargetRefused!, /is a network path: SQL Server's service account would connect to the server files01 and authenticate/);
  });

  it('another device path (GLOBALROOT, a pipe) may lead to a redirector: confirmed like a network path, server not guessed', () => {
    assert.deepEqual(networkPathServer('\\\\?\\GLOBALROOT\\Device\\Mup\\files01\\share\\dl'), { server: null });
    assert.match(settingsWith('\\\\.\\pipe\\x').xeTargetRefused!, /connect to whatever server that device path leads to/);
  });
});
