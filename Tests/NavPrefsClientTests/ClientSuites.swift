import Testing

/// Every suite of the client runs one test at a time: each starts a server and clients whose
/// streams stay open, and the timings they check (an idle stream's CPU, a write under a
/// millisecond, an outbox drained within a second) need the machine's cores.
@Suite("NavPrefsClient against the real server", .serialized)
enum ClientSuites {}
