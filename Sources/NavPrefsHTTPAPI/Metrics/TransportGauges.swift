import MicroHTTPServer
import Synchronization

/// Where `/metrics` reads what the transport holds: set once the server exists
/// (``NavPrefsAPI/reportTransport(streams:answers:)``).
final class TransportGauges: Sendable {
    let budgets = Mutex<(streams: StreamBudget?, answers: AnswerBudget?)>((nil, nil))
}
