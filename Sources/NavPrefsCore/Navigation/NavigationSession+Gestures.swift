/// Navigation pans (G-1..G-11): which can begin, what a given pan does, and performing it.
extension NavigationSession {
    /// What pans the session allows now (before any touch).
    ///
    /// - `interactivePop` (UIKit): back only, from the 20 pt leading edge, above the root (G-1),
    ///   and only while the back button shows (G-2), unless seed 002's fix is on
    ///   (``NavigationOptions/seedRestoresSwipeBack``). Screens' gesture settings are not read.
    /// - `seedFullScreenPan` (seed 002): back only, from anywhere, above the root (G-1).
    /// - `xzNavigationPan` (XZ, G-10): back above the root from the 20 pt edge (G-5), or per the
    ///   top's edge insets (G-6), to its back target or one level (G-8); forward only to the top's
    ///   forward target, from where its insets allow (G-7).
    public var gestureAvailability: GestureAvailability {
        let recognizer = options.backGesture
        return GestureAvailability(recognizer: recognizer, interactivePopGestureEnabled: recognizer == .interactivePop,
                                   back: backSide, forward: forwardSide)
    }

    /// What `pan` would do, without doing it. When several rules refuse, the first of these is
    /// reported: G-3 (XZ only), G-4, the side's own refusal (G-1, G-2, G-7, targets), then the
    /// start region (G-5, G-6).
    public func evaluateGesture(_ pan: PanGesture) -> GestureEvaluation {
        let recognizer = options.backGesture
        func refused(_ refusal: GestureEvaluation.Refusal, _ direction: GestureEvaluation.Direction) -> GestureEvaluation {
            GestureEvaluation(recognizer: recognizer, direction: direction, operation: .none, refusal: refusal,
                              wouldFinish: false, finishedBy: nil, progress: 0, removedEvenIfCancelled: [])
        }
        let direction = Self.direction(of: pan)
        if recognizer == .xzNavigationPan, abs(pan.translation.x) < abs(pan.translation.y) * 10 {
            return refused(.notHorizontal, direction)
        }
        let side: GestureAvailability.Side
        switch direction {
        case .none: return refused(.noHorizontalVelocity, direction)
        case .back: side = backSide
        case .forward: side = forwardSide
        }
        if let refusal = side.refusal { return refused(refusal, direction) }
        guard side.region.contains(x: pan.start.x, width: pan.width, direction: pan.layoutDirection) else {
            return refused(side.region.refusalOutside, direction)
        }

        // G-9: along the operation's direction, speed first, then distance.
        let sign: Double = (direction == .back) == (pan.layoutDirection == .leftToRight) ? 1 : -1
        let speed = pan.velocity.x * sign
        let fraction = pan.translation.x * sign / pan.width
        let finish: GestureEvaluation.Finish? =
            speed > GestureEvaluation.finishingSpeed ? .velocity : fraction > GestureEvaluation.finishingFraction ? .distance : nil
        var skipped: [ScreenID] = []
        if finish == nil, case .popTo(let target) = side.operation, let index = stack.index(of: target) {
            skipped = Array(stack.ids[(index + 1)..<(stack.count - 1)])
        }
        return GestureEvaluation(recognizer: recognizer, direction: direction, operation: side.operation, refusal: nil,
                                 wouldFinish: finish != nil, finishedBy: finish, progress: min(max(fraction, 0), 1),
                                 removedEvenIfCancelled: skipped)
    }

    /// Performs `pan`: a finishing pan applies its operation as the session's own push or pops
    /// would (animated; seed 002's back item and XZ's custom bar included), a cancelled one
    /// changes nothing, except that a cancelled back-to-any-page pan still removes the screens it
    /// skipped (G-9, XZ known issue 3); the top stays, so that is a change but not a transition.
    /// - Throws: only what the operation itself can throw; the evaluation rules those cases out.
    public mutating func performGesture(_ pan: PanGesture) throws(NavigationError) -> GestureOutcome {
        let evaluation = evaluateGesture(pan)
        guard evaluation.wouldFinish else {
            guard !evaluation.removedEvenIfCancelled.isEmpty else { return GestureOutcome(evaluation: evaluation, transition: nil) }
            let skipped = Set(evaluation.removedEvenIfCancelled)
            let before = stack
            let after = NavigationStack(unchecked: stack.screens.filter { !skipped.contains($0.id) })
            let transition = NavigationTransition(action: .popTo, operation: .none, before: before, after: after,
                                                  removed: before.screens.filter { skipped.contains($0.id) },
                                                  animated: true, interaction: .cancelled)
            return GestureOutcome(evaluation: evaluation, transition: apply(transition))
        }
        let transition: NavigationTransition
        switch evaluation.operation {
        case .none: return GestureOutcome(evaluation: evaluation, transition: nil)
        case .pop: transition = pop(animated: true)
        case .popTo(let target): transition = try pop(to: target, animated: true)
        case .push(let screen): transition = try push(screen, animated: true)
        }
        return GestureOutcome(evaluation: evaluation, transition: transition.finishingInteraction)
    }

    // MARK: Rules

    /// G-4: velocity toward the trailing edge is back (rightward left-to-right), toward the
    /// leading edge forward; none without horizontal velocity.
    static func direction(of pan: PanGesture) -> GestureEvaluation.Direction {
        let towardTrailing = pan.layoutDirection == .leftToRight ? pan.velocity.x : -pan.velocity.x
        return towardTrailing > 0 ? .back : towardTrailing < 0 ? .forward : .none
    }

    private var backSide: GestureAvailability.Side {
        let top = stack.top
        let xzSettings = options.isCustomizable ? top.gestures : nil
        let region: GestureAvailability.Region = switch options.backGesture {
        case .interactivePop: .defaultEdge
        case .seedFullScreenPan: .fullScreen
        case .xzNavigationPan:
            xzSettings.map { settings in settings.edgeInsets?.leading.map(GestureAvailability.Region.leadingInset) ?? .fullScreen }
                ?? .defaultEdge
        }
        func refused(_ refusal: GestureEvaluation.Refusal) -> GestureAvailability.Side {
            GestureAvailability.Side(refusal: refusal, region: region, operation: .none)
        }
        guard let back = stack.back else { return refused(.atRoot) }
        if options.backGesture == .interactivePop && !options.seedRestoresSwipeBack {
            if top.navigationItem.hidesBackButton { return refused(.hiddenBackButton) }
            if !top.navigationItem.leftBarButtonItems.isEmpty && !top.navigationItem.leftItemsSupplementBackButton {
                return refused(.customLeftItem)
            }
        }
        guard let target = xzSettings?.backTarget else {
            return GestureAvailability.Side(refusal: nil, region: region, operation: .pop(to: back.id))
        }
        guard stack.contains(target), target != top.id else { return refused(.backTargetNotOnStack) }
        return GestureAvailability.Side(refusal: nil, region: region, operation: .popTo(target))
    }

    private var forwardSide: GestureAvailability.Side {
        let settings = options.isCustomizable ? stack.top.gestures : nil
        let region = settings?.edgeInsets?.trailing.map(GestureAvailability.Region.trailingInset) ?? .fullScreen
        func refused(_ refusal: GestureEvaluation.Refusal) -> GestureAvailability.Side {
            GestureAvailability.Side(refusal: refusal, region: region, operation: .none)
        }
        guard let target = settings?.forwardTarget else { return refused(.noForwardTarget) }
        if stack.contains(target.id) { return refused(.forwardTargetOnStack) }
        if presented?.id == target.id { return refused(.forwardTargetIsPresented) }
        if stack.count >= NavigationLimits.maxStackDepth { return refused(.stackFull) }
        return GestureAvailability.Side(refusal: nil, region: region, operation: .push(target))
    }
}

extension NavigationTransition {
    /// The same change, marked as made by a pan that finished.
    var finishingInteraction: NavigationTransition {
        NavigationTransition(action: action, operation: operation, before: before, after: after, removed: removed,
                             animated: animated, interaction: .finished)
    }
}
