/// What a streamed response's callbacks need: the stream, and the server to tell when it ends.
final class StreamBox {
    let stream: ResponseStream
    let core: ServerCore
    /// The connection the stream is answered on.
    let connection: ConnectionHandle
    /// Pieces sent since the connection was last resumed (event-loop thread; ``StreamPacer``).
    var piecesSinceResume = 0

    init(stream: ResponseStream, core: ServerCore, connection: ConnectionHandle) {
        self.stream = stream
        self.core = core
        self.connection = connection
    }
}
