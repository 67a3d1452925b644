import CYAML

/// A YAML document as libyaml parsed it: scalars with their text, whether they were plain
/// (unquoted, so typed by the YAML 1.1 rules ``JSONFromYAML`` applies) and their explicit tag.
/// All of libyaml's pointers stay in this file.
indirect enum YAMLNode {
    case scalar(String, plain: Bool, tag: String?)
    case sequence([YAMLNode])
    case mapping([(key: YAMLNode, value: YAMLNode)])
}

struct YAMLError: Error, CustomStringConvertible {
    let description: String
}

extension YAMLNode {
    /// Parses the one document in `bytes` with libyaml's event parser (the parser PyYAML's C
    /// loader uses). Aliases and more than one document are refused: the contract uses neither.
    static func parse(_ bytes: [UInt8]) throws -> YAMLNode {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw YAMLError(description: "libyaml could not start a parser") }
        defer { yaml_parser_delete(&parser) }
        return try bytes.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder()
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    let problem = parser.problem.map { String(cString: $0) } ?? "unknown problem"
                    throw YAMLError(description: "line \(parser.problem_mark.line + 1): \(problem)")
                }
                defer { yaml_event_delete(&event) }
                switch event.type {
                case YAML_STREAM_END_EVENT:
                    guard let root = builder.root else { throw YAMLError(description: "the file holds no document") }
                    return root
                case YAML_SCALAR_EVENT:
                    let scalar = event.data.scalar
                    let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                    let tag = scalar.tag.map { String(cString: $0) }
                    try builder.add(.scalar(text, plain: scalar.style == YAML_PLAIN_SCALAR_STYLE, tag: tag), line: event.start_mark.line)
                case YAML_SEQUENCE_START_EVENT: builder.open(.sequence([]))
                case YAML_MAPPING_START_EVENT: builder.open(.mapping([], key: nil))
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT: try builder.close(line: event.start_mark.line)
                case YAML_ALIAS_EVENT: throw YAMLError(description: "line \(event.start_mark.line + 1): aliases are not supported")
                default: break  // stream and document starts and ends
                }
            }
        }
    }
}

/// Turns libyaml's events back into a tree.
private struct TreeBuilder {
    enum Open {
        case sequence([YAMLNode])
        case mapping([(key: YAMLNode, value: YAMLNode)], key: YAMLNode?)
    }

    private var open: [Open] = []
    private(set) var root: YAMLNode?

    mutating func open(_ container: Open) { open.append(container) }

    mutating func close(line: Int) throws {
        guard let container = open.popLast() else { throw YAMLError(description: "line \(line + 1): a collection ends that never began") }
        switch container {
        case .sequence(let items): try add(.sequence(items), line: line)
        case .mapping(let pairs, _): try add(.mapping(pairs), line: line)
        }
    }

    mutating func add(_ node: YAMLNode, line: Int) throws {
        guard let container = open.popLast() else {
            guard root == nil else { throw YAMLError(description: "line \(line + 1): more than one document") }
            root = node
            return
        }
        switch container {
        case .sequence(var items):
            items.append(node)
            open.append(.sequence(items))
        case .mapping(var pairs, let key?):
            pairs.append((key: key, value: node))
            open.append(.mapping(pairs, key: nil))
        case .mapping(let pairs, nil):
            open.append(.mapping(pairs, key: node))
        }
    }
}
