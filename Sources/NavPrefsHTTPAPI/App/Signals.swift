import Dispatch
import Foundation
import Synchronization

/// Waits for termination signals through Dispatch (signal handlers proper can do almost nothing safely).
enum Signals {
    /// Returns the first of `signals` delivered to the process. A second one, while shutdown
    /// is under way, exits at once with status 1 for an operator who does not want to wait.
    static func first(of signals: [Int32]) async -> Int32 {
        await withCheckedContinuation { continuation in
            let received = Atomic<Int>(0)
            let queue = DispatchQueue(label: "signals")
            var sources: [any DispatchSourceSignal] = []
            for number in signals {
                signal(number, SIG_IGN)  // otherwise the default action ends the process first
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler {
                    if received.add(1, ordering: .relaxed).newValue == 1 {
                        continuation.resume(returning: number)
                    } else {
                        exit(1)
                    }
                }
                source.resume()
                sources.append(source)
            }
            SignalSources.keep(sources)
        }
    }
}

/// Keeps signal sources alive for the life of the process (a released source stops listening).
///
/// Safety (`@unchecked Sendable`): the array is only appended to, under `lock`, and never read.
private final class SignalSources: @unchecked Sendable {
    private static let shared = SignalSources()
    private let lock = NSLock()
    private var retained: [any DispatchSourceSignal] = []

    static func keep(_ sources: [any DispatchSourceSignal]) {
        shared.lock.lock()
        shared.retained.append(contentsOf: sources)
        shared.lock.unlock()
    }
}
