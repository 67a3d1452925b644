/// What the socket server holds that shutdown must end, and what its event loop watches itself:
/// requests whose connection is suspended while their admission or answer is made elsewhere,
/// open streams, and the sockets the loop watches (``SocketWatch``). Kept in ``ServerCore``
/// behind a lock: answers arrive from any thread, shutdown reads it from any thread.
struct SuspensionRegistry: ~Copyable {
    /// The one-shots of requests whose connection is suspended, with the head to refuse
    /// them with at shutdown (never the context itself: other threads read this).
    var waiting: [ObjectIdentifier: Waiting] = [:]
    var streams: [Int: ResponseStream] = [:]
    /// Sockets the loop watches itself, by token (``SocketWatch``).
    var watched: [Int: Watched] = [:]
    /// The answers the server is writing to sockets itself, by token: few and short-lived,
    /// kept apart from the streams' watches so the loop looks at them alone each turn.
    var answersOnSockets: [Int: AnswerOnSocket] = [:]

    /// What a watched socket belongs to.
    enum Watched: Sendable {
        /// A stream's connection, watched for its client's hang-up while suspended.
        case stream(ResponseStream, socket: Int32)
        /// An answer the server writes to the socket itself (``AnswerOnSocket``).
        case answer(AnswerOnSocket)
    }

    /// A request whose connection is suspended: what shutdown answers it through.
    struct Waiting {
        let head: HTTPRequestHead
        let response: OneShot<HTTPResponse>?
        let admission: OneShot<HTTPAdmission>?
    }
}
