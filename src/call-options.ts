/**
 * Per-call settings every operation accepts as its last argument. Any other key (a misspelt
 * `idempotency_key`) is refused with a 400 `invalid_call_options` (docs/limits.md#arguments-and-per-call-options).
 */
export interface CallOptions {
  /**
   * Makes an unsafe operation (redeem, rollback, reward redemption, publication, order create, custom
   * event, member create) safe to retry: a second call with the same key and the same input returns the
   * first call's result and changes nothing. See docs/http.md.
   */
  idempotencyKey?: string
}
