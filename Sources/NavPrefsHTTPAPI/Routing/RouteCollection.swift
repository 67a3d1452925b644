/// The routes of one resource, declared in its own file (``CounterRoutes``, ``FontRoutes``...),
/// with what its handlers need (the store, the cache) as stored properties.
///
/// ``NavPrefsAPI`` lists the collections it serves; a new route joins its resource's
/// collection and needs no other file of the HTTP layer.
protocol RouteCollection {
    var routes: [Route] { get }
}
