import Foundation

/// What a stream connection delivers, in order: the head, body chunks, then the end.
enum StreamChunk: Sendable {
    case head(status: Int, contentType: String?)
    case data(Data)
    /// The answer ended: `nil` when the server closed it, else why it broke.
    case end(String?)
}
