/// The one-shot way an admission decided later (``HTTPAdmission/later(_:)``) hands its
/// decision back, from any thread, exactly once.
public struct HTTPAdmissionResponder: Sendable {
    let shot: OneShot<HTTPAdmission>

    /// Decides; `false` if a decision was made already (or the request is gone).
    @discardableResult
    public func decide(_ admission: HTTPAdmission) -> Bool { shot.fulfil(admission) }
}
