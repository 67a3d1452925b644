// floor --port PORT --database PATH [--synchronous full|normal]
//
// Serves GET /v1/profiles/{p}/counter and POST /v1/profiles/{p}/counter/increment ({"by": n})
// on 127.0.0.1 with navprefs' schema and increment statements, one commit per event-loop turn.
// Runs until SIGINT or SIGTERM; then prints how many turns committed how many writes, the mean
// wall time of a commit (with FULL: the flush) and how many writes the turns held.
import CSQLite
import Glibc

var port: UInt16?, database: String?, synchronous = "FULL"
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch (argument, arguments.next()) {
    case ("--port", let value?): port = UInt16(value)
    case ("--database", let value?): database = value
    case ("--synchronous", "full"?): synchronous = "FULL"
    case ("--synchronous", "normal"?): synchronous = "NORMAL"
    default: port = nil; database = nil
    }
}
guard let port, let database else {
    printError("usage: floor --port PORT --database PATH [--synchronous full|normal]")
    exit(2)
}
_ = floor_keep_freed_heap(256 << 20)
guard let store = Store(path: database, synchronous: synchronous) else {
    printError("floor: cannot open \(database) with navprefs' schema")
    exit(1)
}
let server = FloorServer(store: store)
guard server.serve(port: port) else {
    printError("floor: cannot serve on 127.0.0.1:\(port)")
    exit(1)
}
let labels = ["1", "2-3", "4-7", "8-15", "16-31", "32-63", "64-127", "128+"]
let sizes = zip(labels, server.turnSizes).map { "\($0.0): \($0.1)" }.joined(separator: ", ")
let commitMicroseconds = server.turns > 0 ? server.commitNanoseconds / Int64(server.turns) / 1000 : 0
printError("floor: \(server.writes) writes in \(server.turns) turns; commit \(commitMicroseconds) µs per turn (wall); turns by writes: \(sizes)")
