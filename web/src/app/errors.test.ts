import { describe, expect, it } from 'vitest';
import { describeError, errorCode } from './errors';

describe('describeError', () => {
  it('keeps server wording for argument and rate-limit errors', () => {
    expect(describeError({ code: 'functions/invalid-argument', message: 'initial_message is empty' }))
      .toBe('initial_message is empty');
    expect(describeError({ code: 'functions/resource-exhausted', message: 'Too many messages; wait 12 s' }))
      .toBe('Too many messages; wait 12 s');
  });
  it('explains permission problems without SDK jargon', () => {
    expect(describeError({ code: 'permission-denied', message: 'Missing or insufficient permissions.' }, 'Starting a chat'))
      .toBe('Starting a chat is not allowed for your account.');
    expect(describeError({ code: 'functions/permission-denied', message: 'Your account may not use AI features' }))
      .toBe('Your account may not use AI features');
  });
  it('maps auth failures and unknowns', () => {
    expect(describeError({ code: 'auth/invalid-credential', message: 'x' })).toBe('Wrong email or password.');
    expect(describeError({ code: 'functions/unavailable' })).toMatch(/could not be reached/);
    expect(describeError(new Error('boom'))).toBe('boom');
    expect(describeError(null, 'Sending')).toBe('Sending failed.');
    expect(errorCode({ code: 'functions/not-found' })).toBe('not-found');
  });
});
