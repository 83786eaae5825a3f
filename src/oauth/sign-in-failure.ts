// Why a sign-in with a provider failed, as the stable code the failure redirect carries
// (`?error=<code>`); the cause is logged, never sent.
export class SignInFailure extends Error {
  constructor(
    readonly code: string,
    cause?: unknown
  ) {
    super(`sign-in failed: ${code}`, { cause })
  }
}
