/// What `login.mustache` shows: the token form, where to go once in, and what was wrong.
struct LoginView {
    let next: String
    let problem: String?
}
