import Testing

/// Every suite of the client runs one test at a time: each starts a server and clients whose
/// streams stay open (on Linux, swift-corelibs-foundation's URLSession keeps a core busy while a
/// stream is idle), and the timings they check need the machine's cores.
@Suite("NavPrefsClient against the real server", .serialized)
enum ClientSuites {}
