import { describe, expect, it } from 'vitest';
import { authEmulatorUrl, mcpUrl, parseConfig, splitHostPort } from './config';

describe('parseConfig', () => {
  it('defaults to the demo project without emulators', () => {
    const c = parseConfig({});
    expect(c.firebase.projectId).toBe('demo-cardchat');
    expect(c.emulators).toBeNull();
    expect(c.forceLongPolling).toBe(false);
  });
  it('reads firebase config, emulators and long polling', () => {
    const c = parseConfig({
      VITE_FIREBASE_CONFIG: '{"projectId":"p1","apiKey":"k"}',
      VITE_EMULATORS: '{"auth":"http://127.0.0.1:9299","firestore":"127.0.0.1:8280"}',
      VITE_FORCE_LONG_POLLING: '1',
    });
    expect(c.firebase.projectId).toBe('p1');
    expect(c.emulators?.firestore).toBe('127.0.0.1:8280');
    expect(c.forceLongPolling).toBe(true);
  });
  it('names the variable when JSON is broken', () => {
    expect(() => parseConfig({ VITE_EMULATORS: '{auth:' })).toThrow(/VITE_EMULATORS/);
    expect(() => parseConfig({ VITE_FIREBASE_CONFIG: '{}' })).toThrow(/projectId/);
  });
});

describe('emulator addresses', () => {
  it('splits host and port from either form', () => {
    expect(splitHostPort('127.0.0.1:8080')).toEqual(['127.0.0.1', 8080]);
    expect(splitHostPort('http://localhost:5001/')).toEqual(['localhost', 5001]);
    expect(() => splitHostPort('localhost')).toThrow(/host:port/);
  });
  it('turns host:port into a URL for auth', () => {
    expect(authEmulatorUrl('127.0.0.1:9099')).toBe('http://127.0.0.1:9099');
    expect(authEmulatorUrl('http://127.0.0.1:9099')).toBe('http://127.0.0.1:9099');
  });
});

describe('mcpUrl', () => {
  it('is the deployed function, or the Functions emulator\'s', () => {
    const deployed = parseConfig({ VITE_FIREBASE_CONFIG: '{"projectId":"p1","apiKey":"k"}' });
    expect(mcpUrl(deployed, 'us-central1')).toBe('https://us-central1-p1.cloudfunctions.net/mcp');
    const local = parseConfig({ VITE_EMULATORS: '{"functions":"127.0.0.1:5001"}' });
    expect(mcpUrl(local, 'us-central1')).toBe('http://127.0.0.1:5001/demo-cardchat/us-central1/mcp');
    expect(mcpUrl(deployed, 'us-central1', 'syncCards')).toBe('https://us-central1-p1.cloudfunctions.net/syncCards');
  });
});
