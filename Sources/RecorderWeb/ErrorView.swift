/// What `error.mustache` shows: the status and the sentence saying what went wrong (never a
/// stack trace).
struct ErrorView {
    let code: Int
    let reason: String
    let message: String

    init(_ error: WebError) {
        code = error.status.code
        reason = error.status.reasonPhrase
        message = error.message
    }
}
