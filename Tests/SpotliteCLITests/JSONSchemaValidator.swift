import Foundation

/// A JSON value decoded strictly (a boolean is never a number), for schema checks.
indirect enum JSONNode: Decodable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONNode])
    case object([String: JSONNode])

    init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer()
        if value.decodeNil() {
            self = .null
        } else if let flag = try? value.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? value.decode(Double.self) {
            self = .number(number)
        } else if let text = try? value.decode(String.self) {
            self = .string(text)
        } else if let array = try? value.decode([JSONNode].self) {
            self = .array(array)
        } else {
            self = .object(try value.decode([String: JSONNode].self))
        }
    }

    static func parse(_ data: Data) throws -> JSONNode { try JSONDecoder().decode(JSONNode.self, from: data) }

    subscript(key: String) -> JSONNode? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number(let value): return value.rounded() == value ? "integer" : "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

/// Checks a JSON value against the subset of JSON Schema our schemas use: type (one or several), const, enum,
/// required, properties, additionalProperties, items, minimum, maximum, oneOf and local $ref. Returns what fails.
struct JSONSchemaValidator {
    let root: JSONNode

    func errors(_ value: JSONNode, path: String = "$") -> [String] { check(value, against: root, path: path) }

    private func resolve(_ schema: JSONNode) -> JSONNode {
        guard case .string(let ref)? = schema["$ref"], ref.hasPrefix("#/") else { return schema }
        var node = root
        for part in ref.dropFirst(2).split(separator: "/") { node = node[String(part)] ?? .null }
        return node
    }

    private func check(_ value: JSONNode, against raw: JSONNode, path: String) -> [String] {
        let schema = resolve(raw)
        var errors: [String] = []
        if case .array(let choices)? = schema["oneOf"] {
            let matching = choices.filter { check(value, against: $0, path: path).isEmpty }.count
            if matching != 1 { errors.append("\(path): matches \(matching) of oneOf") }
        }
        let actual = value.typeName
        if let type = schema["type"] {
            var allowed: [String] = []
            if case .string(let one) = type { allowed = [one] }
            if case .array(let many) = type {
                allowed = many.compactMap { if case .string(let s) = $0 { s } else { nil } }
            }
            if !(allowed.contains(actual) || (actual == "integer" && allowed.contains("number"))) {
                errors.append("\(path): is \(actual), expected \(allowed.joined(separator: " or "))")
            }
        }
        if let constant = schema["const"], constant != value { errors.append("\(path): expected \(constant)") }
        if case .array(let choices)? = schema["enum"], !choices.contains(value) {
            errors.append("\(path): not one of the allowed values")
        }
        if case .number(let number) = value {
            if case .number(let minimum)? = schema["minimum"], number < minimum {
                errors.append("\(path): below \(minimum)")
            }
            if case .number(let maximum)? = schema["maximum"], number > maximum {
                errors.append("\(path): above \(maximum)")
            }
        }
        if case .object(let members) = value {
            if case .array(let required)? = schema["required"] {
                for case .string(let key) in required where members[key] == nil {
                    errors.append("\(path): missing \(key)")
                }
            }
            for (key, member) in members {
                if let property = schema["properties"]?[key] {
                    errors += check(member, against: property, path: "\(path).\(key)")
                } else if let additional = schema["additionalProperties"] {
                    if case .bool(false) = additional {
                        errors.append("\(path): unexpected \(key)")
                    } else if case .object = additional {
                        errors += check(member, against: additional, path: "\(path).\(key)")
                    }
                }
            }
        }
        if case .array(let elements) = value, let items = schema["items"] {
            for (index, element) in elements.enumerated() {
                errors += check(element, against: items, path: "\(path)[\(index)]")
            }
        }
        return errors
    }
}
