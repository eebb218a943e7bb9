import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { debianMirror } from '../../../extension/core/runtime/aptSources';
import { connectionOptionsFromEnv } from '../../../extension/core/runtime/dockerConnection';
import { dockerodeOptions } from '../../../extension/core/runtime/dockerHost';
import { bashQuote } from '../../../extension/core/runtime/shellSession';

describe('debianMirror', () => {
  test('reads the bookworm URI from deb822 sources, skipping security', () => {
    const text =
      'Types: deb\nURIs: http://deb.debian.org/debian-security\nSuites: bookworm-security\n\nTypes: deb\n# a comment\nURIs: http://mirror.example/debian\nSuites: bookworm bookworm-updates\nComponents: main\n';
    assert.equal(debianMirror(text, 'bookworm'), 'http://mirror.example/debian');
  });
  test('reads a one-line sources.list, with options in brackets', () => {
    assert.equal(debianMirror('deb [arch=amd64] http://ftp.example/debian bookworm main\n', 'bookworm'), 'http://ftp.example/debian');
    assert.equal(debianMirror('deb http://ftp.example/debian bullseye main\n', 'bookworm'), undefined);
  });
});

describe('bashQuote', () => {
  test('round-trips any text through bash unchanged', () => {
    const text = 'a\'b"c\\d $HOME `x` \n\ttab \x01 ü 漢字 !';
    const r = spawnSync('bash', ['-c', `printf %s ${bashQuote(text)}`], { encoding: 'utf8' });
    assert.equal(r.stdout, text);
  });
});

describe('docker connection options', () => {
  test('the default is the local socket', () => {
    assert.deepEqual(dockerodeOptions({}), { socketPath: '/var/run/docker.sock' });
    assert.deepEqual(dockerodeOptions(connectionOptionsFromEnv({ DOCKER_HOST: 'unix:///run/user/1000/docker.sock' })), {
      socketPath: '/run/user/1000/docker.sock',
    });
  });
  test('tcp:// is plain HTTP unless TLS is asked for or the port is 2376', () => {
    assert.deepEqual(dockerodeOptions({ host: 'tcp://10.0.0.5:2375' }), { protocol: 'http', host: '10.0.0.5', port: 2375 });
    assert.deepEqual(dockerodeOptions(connectionOptionsFromEnv({ DOCKER_HOST: 'tcp://h:4000', DOCKER_TLS_VERIFY: '1' })), {
      protocol: 'https',
      host: 'h',
      port: 4000,
    });
    assert.equal(dockerodeOptions({ host: 'tcp://h:2376' }).protocol, 'https');
  });
  test('ssh:// carries the user', () => {
    const o = dockerodeOptions({ host: 'ssh://builder@gpu-box' }) as { protocol: string; host: string; username: string; port: number };
    assert.deepEqual([o.protocol, o.host, o.username, o.port], ['ssh', 'gpu-box', 'builder', 22]);
  });
  test('bad values say what and where', () => {
    assert.throws(() => dockerodeOptions({ host: 'ftp://h' }), /DOCKER_HOST: 'ftp:\/\/h': unsupported scheme 'ftp:'/);
    assert.throws(() => dockerodeOptions({ host: 'tcp://h:1', certPath: '/nonexistent-certs' }), /\/nonexistent-certs\/ca\.pem: cannot read the TLS file/);
  });
});
