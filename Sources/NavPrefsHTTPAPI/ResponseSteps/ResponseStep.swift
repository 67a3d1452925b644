import MicroHTTPServer

/// One thing done to every answer after its route made it (middleware): a field every answer
/// carries, a count, the log line.
///
/// ``NavPrefsAPI`` applies its steps in the order it lists them (``NavPrefsAPI/responseSteps``),
/// to answers of routes and refusals of the gate alike; each step's type says why it stands
/// where it does. A step only adds to the answer and never fails: by the time it runs, the
/// answer is decided.
protocol ResponseStep: Sendable {
    func apply(to response: inout HTTPResponse, _ context: ResponseContext)
}
