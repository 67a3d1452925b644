public import Foundation

extension Notification.Name {
    /// Seed 001's notification, posted by the library whenever the font settings change, here or
    /// on another device: `NotificationCenter.default.addObserver(self, selector: #selector(updateUI),
    /// name: .doRefreshNotification, object: nil)` works unchanged. `userInfo` holds
    /// `sliderValue`, `fontSize` and `effectiveFontSize` (`Double`), `fromThisDevice` (`Bool`) and,
    /// when the server said who made the change, `author` (``ChangeAuthor``).
    public static let doRefreshNotification = Notification.Name("doRefreshNotification")
}

/// Where the library posts its notifications from.
public enum NotificationDelivery: Sendable {
    /// On the main queue, as UIKit code that observes them expects (the default): posted from an
    /// operation of `OperationQueue.main`, so an observer added with `queue: .main` runs right
    /// there, in a command-line program on Linux too.
    case mainActor
    /// On the library's own task, right after the mirror changed (for code that follows changes
    /// off the main queue: servers, tests). An observer added with `queue: .main` then makes the
    /// library wait for the main queue.
    case immediately
}

/// Posts the library's notifications and feeds its change streams, in the order changes apply.
final class Announcer: Sendable {
    private let center: Shared<NotificationCenter>
    private let delivery: NotificationDelivery
    private let observers = Locked<[UUID: Observer]>([:])

    private struct Observer {
        let key: String?
        let continuation: AsyncStream<PreferenceChange>.Continuation
    }

    init(center: NotificationCenter, delivery: NotificationDelivery) {
        self.center = Shared(center)
        self.delivery = delivery
    }

    /// A stream of the changes of `key` (every key: `nil`), from now on.
    func changes(of key: String?) -> AsyncStream<PreferenceChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: PreferenceChange.self, bufferingPolicy: .unbounded)
        let id = UUID()
        observers.withLock { $0[id] = Observer(key: key, continuation: continuation) }
        continuation.onTermination = { [weak self] _ in _ = self?.observers.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    /// Announces `changes` (already in the mirror): the change streams, then
    /// `doRefreshNotification` if the font changed, then `RemoteDefaults.didChangeNotification`.
    func announce(_ changes: [PreferenceChange], refreshed: Bool, font: (slider: Double, size: Double, effective: Double),
                  origin: ChangeOrigin, sender: RemoteDefaults) async {
        guard let post = prepare(changes, refreshed: refreshed, font: font, origin: origin, sender: sender) else { return }
        await deliver(post)
    }

    /// `announce` for a change made by a synchronous call: on the caller's thread when that is
    /// where notifications go (as `UserDefaults` posts), else queued to the main queue.
    func announceNow(_ changes: [PreferenceChange], refreshed: Bool, font: (slider: Double, size: Double, effective: Double),
                     origin: ChangeOrigin, sender: RemoteDefaults) {
        guard let post = prepare(changes, refreshed: refreshed, font: font, origin: origin, sender: sender) else { return }
        // Inline only where a `queue: .main` observer would not make `post` wait on the queue
        // running it: inside one of the main queue's operations, or off the main queue.
        let inline = switch delivery {
        case .mainActor: MainQueue.isRunningItsOperation
        case .immediately: MainQueue.isRunningItsOperation || !MainQueue.isCurrent
        }
        if inline { post() } else { OperationQueue.main.addOperation(post) }
    }

    /// Posts `name` (a conflict, a rejected write) where the library's notifications go.
    func post(_ name: Notification.Name, sender: RemoteDefaults, userInfo: [String: Any]) async {
        let center = self.center, sender = Shared(sender), info = Shared(userInfo)
        await deliver { center.object.post(name: name, object: sender.object, userInfo: info.object) }
    }

    private func deliver(_ post: @escaping @Sendable () -> Void) async {
        switch delivery {
        case .mainActor: await Self.onMainQueue(post)
        case .immediately: post()
        }
    }

    /// Runs `post` as an operation of `OperationQueue.main` and returns once it ran, never
    /// blocking a thread meanwhile (see ``MainQueue`` for why not `MainActor.run`).
    static func onMainQueue(_ post: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (posted: CheckedContinuation<Void, Never>) in
            OperationQueue.main.addOperation {
                post()
                posted.resume()
            }
        }
    }

    /// Feeds the change streams; the notifications to post, if any are due.
    private func prepare(_ changes: [PreferenceChange], refreshed: Bool, font: (slider: Double, size: Double, effective: Double),
                         origin: ChangeOrigin, sender: RemoteDefaults) -> (@Sendable () -> Void)? {
        let current = observers.withLock { Array($0.values) }
        for change in changes {
            for observer in current where observer.key.map({ $0.sameBytes(as: change.key) }) ?? true { observer.continuation.yield(change) }
        }
        guard refreshed || !changes.isEmpty else { return nil }
        let center = self.center, keys = changes.map(\.key), sender = Shared(sender)
        return {
            // Who made it: this device's own change, or another's (and its author, when known).
            var made: [String: any Sendable] = ["fromThisDevice": origin.isFromThisDevice]
            if let author = origin.author { made["author"] = author }
            if refreshed {
                center.object.post(name: .doRefreshNotification, object: nil, userInfo: made.merging([
                    "sliderValue": font.slider, "fontSize": font.size, "effectiveFontSize": font.effective,
                ]) { first, _ in first })
            }
            if !keys.isEmpty {
                center.object.post(name: RemoteDefaults.didChangeNotification, object: sender.object,
                                   userInfo: made.merging(["keys": keys]) { first, _ in first })
            }
        }
    }

    /// Ends every change stream (the profile stopped).
    func finish() {
        for observer in observers.withLock({ $0.values }) { observer.continuation.finish() }
    }
}

/// Where the calling code runs, as `NotificationCenter.post` will see it.
///
/// swift-corelibs-foundation's `post` hands a block observed with `queue: .main` to that queue
/// and waits until the queue is empty, unless `OperationQueue.current` is the main queue, which
/// on Linux it is only inside the main queue's own operations or on the main thread. A program
/// with an async `main` runs its main actor on the main dispatch queue but off the main thread
/// (`dispatch_main` ends that thread): a post made there by a main-actor job (`MainActor.run`)
/// waited on the very queue it was running on, for ever. So the library posts from an operation
/// of `OperationQueue.main`, where such an observer runs at once.
enum MainQueue {
    /// Marks the main dispatch queue, so that code can tell it runs there off the main thread.
    private static let marker = Shared(DispatchSpecificKey<Bool>())
    private static let marked: Bool = {
        DispatchQueue.main.setSpecific(key: marker.object, value: true)
        return true
    }()

    /// Inside an operation of `OperationQueue.main` (or on the main thread): `post` runs an
    /// observer of the main queue right here.
    static var isRunningItsOperation: Bool { OperationQueue.current == OperationQueue.main }

    /// On the main dispatch queue, the main actor's, whichever thread runs it.
    static var isCurrent: Bool { Thread.isMainThread || (marked && DispatchQueue.getSpecific(key: marker.object) == true) }
}

/// One key's change, as the change streams deliver it.
public struct PreferenceChange: Sendable, Hashable {
    public let key: String
    /// What `object(forKey:)` answers now (`nil`: no value).
    public let value: JSON?
    /// The version `If-Match` names to change it now (`nil`: no value).
    public let version: Int64?
    /// Who made the change the value now comes from, as the server recorded it (`nil`: not known).
    public let author: ChangeAuthor?
    /// Whether this device made the change: a write of this library (queued or sent), or one
    /// the server records with this client's token and device name.
    public let isFromThisDevice: Bool
}
