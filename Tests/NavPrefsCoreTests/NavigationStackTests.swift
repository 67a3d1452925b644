import NavPrefsCore
import NavPrefsJSON
import Testing

/// Stack rules S-1..S-14 of shared/docs/semantics.md, on ``NavigationStack`` and ``NavigationSession``.
@Suite("Navigation stack (semantics S)")
struct NavigationStackTests {
    @Test("S-1: [0] is the root, the last is the top, [n-2] is the back; a new session holds exactly the root", arguments: [
        (["a"], "a", "a", String?.none),
        (["a", "b"], "a", "b", "a"),
        (["a", "b", "c"], "a", "c", "b"),
    ])
    func s1Positions(names: [String], root: String, top: String, back: String?) {
        let stack = Nav.stack(names)
        #expect(stack.root.id == Nav.id(root))
        #expect(stack.top.id == Nav.id(top))
        #expect(stack.back?.id == back.map(Nav.id))
        let session = NavigationSession(root: Nav.screen("home"))
        #expect(session.stack.ids == [Nav.id("home")])
    }

    @Test("S-2: pushing a screen not on the stack makes it the top, count + 1", arguments: [["a"], ["a", "b"], ["a", "b", "c"]])
    func s2Push(names: [String]) throws {
        let stack = Nav.stack(names)
        let transition = try stack.pushing(Nav.screen("x"))
        #expect(transition.after.top.id == Nav.id("x"))
        #expect(transition.after.count == names.count + 1)
        #expect(transition.operation == .push)
        #expect(transition.action == .push)
        #expect(transition.removed.isEmpty)
        #expect(transition.from == Nav.id(names[names.count - 1]))
        #expect(transition.to == Nav.id("x"))
    }

    @Test("S-3: pushing a screen already on the stack (top or deeper) is refused with UIKit's message, stack unchanged", arguments: [
        (["a"], "a"), (["a", "b", "c"], "c"), (["a", "b", "c"], "b"), (["a", "b", "c"], "a"),
    ])
    func s3DuplicatePush(names: [String], again: String) {
        var stack = Nav.stack(names)
        #expect(throws: NavigationError.alreadyOnStack(Nav.id(again))) { try stack.push(Nav.screen(again)) }
        #expect(stack == Nav.stack(names))
        #expect(NavigationError.alreadyOnStack(Nav.id(again)).uikitMessage
            == "Pushing the same view controller instance more than once is not supported")
        #expect(NavigationError.alreadyOnStack(Nav.id(again)).rule == "S-3")
    }

    @Test("S-4: popping at the root pops nothing: popped is nil, operation none, no event, count stays 1")
    func s4PopAtRoot() {
        var stack = Nav.stack(["a"])
        let transition = stack.pop()
        #expect(transition.popped == nil)
        #expect(transition.operation == .none)
        #expect(!transition.isTransition)
        #expect(!transition.changed)
        #expect(transition.events.isEmpty)
        #expect(stack.count == 1)
        #expect(transition.json.member("popped") == .null)
    }

    @Test("S-5: popping above the root returns the former top; the former back becomes the top", arguments: [
        (["a", "b"], "b", "a"), (["a", "b", "c"], "c", "b"),
    ])
    func s5Pop(names: [String], popped: String, newTop: String) {
        let transition = Nav.stack(names).popping()
        #expect(transition.popped?.id == Nav.id(popped))
        #expect(transition.after.top.id == Nav.id(newTop))
        #expect(transition.operation == .pop)
        #expect(transition.after.count == names.count - 1)
    }

    @Test("S-6: popping to a screen removes every screen above it, bottom to top, and makes it the top", arguments: [
        (["a", "b", "c", "d"], "a", ["b", "c", "d"]),
        (["a", "b", "c", "d"], "b", ["c", "d"]),
        (["a", "b", "c", "d"], "c", ["d"]),
    ])
    func s6PopTo(names: [String], target: String, removed: [String]) throws {
        let transition = try Nav.stack(names).popping(to: Nav.id(target))
        #expect(transition.removed.map(\.id) == removed.map(Nav.id))
        #expect(transition.after.top.id == Nav.id(target))
        #expect(transition.operation == .pop)
        #expect(transition.action == .popTo)
    }

    @Test("S-7: popping to the top removes nothing, an empty list, and is no transition", arguments: [["a"], ["a", "b", "c"]])
    func s7PopToTop(names: [String]) throws {
        let stack = Nav.stack(names)
        let transition = try stack.popping(to: stack.top.id)
        #expect(transition.removed.isEmpty)
        #expect(!transition.isTransition)
        #expect(transition.events.isEmpty)
        #expect(transition.after == stack)
    }

    @Test("S-8: popping to a screen not on the stack is refused with UIKit's message, stack unchanged")
    func s8PopToMissing() {
        var stack = Nav.stack(["a", "b"])
        #expect(throws: NavigationError.notOnStack(Nav.id("z"))) { try stack.pop(to: Nav.id("z")) }
        #expect(stack == Nav.stack(["a", "b"]))
        #expect(NavigationError.notOnStack(Nav.id("z")).uikitMessage == "Tried to pop to a view controller that doesn't exist.")
    }

    @Test("S-9: popping to the root keeps only the root and returns the rest; at the root nothing is popped", arguments: [
        (["a"], [String]()), (["a", "b"], ["b"]), (["a", "b", "c"], ["b", "c"]),
    ])
    func s9PopToRoot(names: [String], removed: [String]) {
        var stack = Nav.stack(names)
        let transition = stack.popToRoot()
        #expect(stack.ids == [Nav.id("a")])
        #expect(transition.removed.map(\.id) == removed.map(Nav.id))
        #expect(transition.isTransition == !removed.isEmpty)
        #expect(transition.action == .popToRoot)
    }

    @Test("S-10: setting the screens replaces the stack and the last becomes the top; repeated ids are refused, stack unchanged")
    func s10SetScreens() throws {
        var stack = Nav.stack(["a", "b"])
        let transition = try stack.setScreens(["x", "a", "y"].map { Nav.screen($0) })
        #expect(stack.ids == ["x", "a", "y"].map(Nav.id))
        #expect(stack.top.id == Nav.id("y"))
        #expect(transition.removed.map(\.id) == [Nav.id("b")])

        let duplicates = ["p", "q", "p", "r", "q", "p"].map { Nav.screen($0) }
        let before = stack
        #expect(throws: NavigationError.duplicateScreens([Nav.id("p"), Nav.id("q")])) { try stack.setScreens(duplicates) }
        #expect(stack == before)
        #expect(NavigationError.duplicateScreens([]).uikitMessage == "All view controllers in a navigation controller must be distinct")
    }

    @Test("S-11: setting the screens is a push when the new top was not on the stack, a pop when it was, none when it is the top", arguments: [
        (["a", "b"], ["a", "b", "c"], NavigationTransition.Operation.push),
        (["a", "b"], ["x"], .push),
        (["a", "b", "c"], ["a"], .pop),
        (["a", "b", "c"], ["c", "b"], .pop),
        (["a", "b"], ["x", "b"], .none),
        (["a", "b"], ["a", "b"], .none),
    ])
    func s11SetOperation(before: [String], after: [String], operation: NavigationTransition.Operation) throws {
        for animated in [true, false] {
            let transition = try Nav.stack(before).settingScreens(after.map { Nav.screen($0) }, animated: animated)
            #expect(transition.operation == operation)
            #expect(transition.animated == animated)
            #expect(transition.action == .setStack)
        }
    }

    @Test("S-12: setting an empty list is refused (UIKit tolerates it; we decided 422), stack unchanged")
    func s12Empty() {
        var stack = Nav.stack(["a"])
        #expect(throws: NavigationError.emptyStack) { try stack.setScreens([]) }
        #expect(throws: NavigationError.emptyStack) { try NavigationStack(screens: []) }
        #expect(stack == Nav.stack(["a"]))
        #expect(NavigationError.emptyStack.uikitMessage == nil)
    }

    @Test("S-13: every transition announces willShow then didShow for the new top; changes without one announce nothing")
    func s13Events() throws {
        let stack = Nav.stack(["a", "b", "c"])
        let transitions = [
            try stack.pushing(Nav.screen("d"), animated: false), stack.popping(), stack.poppingToRoot(),
            try stack.popping(to: Nav.id("b")), try stack.settingScreens([Nav.screen("z")]),
        ]
        for transition in transitions {
            #expect(transition.events.map(\.name) == [.willShow, .didShow])
            #expect(transition.events.allSatisfy { $0.screen == transition.to && $0.animated == transition.animated })
        }
        #expect(try stack.popping(to: Nav.id("c")).events.isEmpty)
        #expect(try stack.settingScreens(["x", "c"].map { Nav.screen($0) }).events.isEmpty)
    }

    @Test("S-14: the visible screen is the presented one if any, else the top")
    func s14Visible() throws {
        var session = Nav.session(["a", "b"])
        #expect(session.visible.id == Nav.id("b"))
        try session.present(Nav.screen("modal"))
        #expect(session.visible.id == Nav.id("modal"))
        #expect(throws: NavigationError.alreadyPresenting(Nav.id("modal"))) { try session.present(Nav.screen("other")) }
        #expect(throws: NavigationError.screenIsPresented(Nav.id("modal"))) { try session.push(Nav.screen("modal")) }
        try session.push(Nav.screen("c"))
        #expect(session.visible.id == Nav.id("modal"))
        #expect(session.dismiss()?.id == Nav.id("modal"))
        #expect(session.visible.id == Nav.id("c"))
        #expect(session.dismiss() == nil)
        #expect(throws: NavigationError.presentingScreenOnStack(Nav.id("a"))) { try session.present(Nav.screen("a")) }
    }

    @Test("limit: a stack holds at most 64 screens, by push and by replacement")
    func depthLimit() throws {
        let full = (0..<NavigationLimits.maxStackDepth).map { Nav.screen("s\($0)") }
        var stack = try NavigationStack(screens: full)
        #expect(throws: NavigationError.stackFull(limit: 64)) { try stack.push(Nav.screen("one-more")) }
        #expect(throws: NavigationError.stackFull(limit: 64)) { try stack.setScreens(full + [Nav.screen("one-more")]) }
        #expect(stack.count == 64)
    }

    @Test("editing a screen's navigation item in place changes no position and shows nothing")
    func editItem() throws {
        var session = Nav.session(["a", "b"])
        try session.updateItem(of: Nav.id("a"), to: NavigationItem(title: "Home"))
        #expect(session.stack.ids == ["a", "b"].map(Nav.id))
        #expect(session.stack.root.navigationItem.title == "Home")
        #expect(session.bar.left.backButton?.title == "Home")
        #expect(throws: NavigationError.screenNotFound(Nav.id("z"))) { try session.updateItem(of: Nav.id("z"), to: NavigationItem()) }
        #expect(throws: NavigationError.screenNotFound(Nav.id("z"))) { try Nav.stack(["a"]).replacing(Nav.screen("z")) }
    }

    @Test("value operations leave the receiver unchanged; the mutating twins apply the same transition", arguments: [0, 1, 2, 3])
    func twins(which: Int) throws {
        let original = Nav.stack(["a", "b", "c"])
        var mutated = original
        let value: NavigationTransition
        let applied: NavigationTransition
        switch which {
        case 0: (value, applied) = (try original.pushing(Nav.screen("d")), try mutated.push(Nav.screen("d")))
        case 1: (value, applied) = (original.popping(), mutated.pop())
        case 2: (value, applied) = (original.poppingToRoot(), mutated.popToRoot())
        default: (value, applied) = (try original.popping(to: Nav.id("b")), try mutated.pop(to: Nav.id("b")))
        }
        #expect(value == applied)
        #expect(mutated == value.after)
        #expect(original == Nav.stack(["a", "b", "c"]))
    }
}
