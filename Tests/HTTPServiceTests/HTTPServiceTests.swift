import Testing

/// Every HTTPService suite runs inside this one, one test at a time: the tests count threads'
/// work (handler calls, live request contexts) that a neighbouring server test would disturb,
/// and the timing tests must not compete with each other on a 2-core machine.
@Suite("HTTPService", .serialized)
struct HTTPServiceTests {}
