import CameraCommon

/// One element of a parsed XML document: enough XML for SOAP and WS-Discovery.
///
/// Names are matched by local name (`tds:GetDeviceInformationResponse` → `GetDeviceInformationResponse`):
/// cameras disagree on prefixes, and ONVIF element names do not collide across the namespaces we read.
/// The parser is small on purpose: no DTDs, no external entities (nothing to fetch, nothing to
/// expand), a depth and size limit, and every malformed input becomes an error, never a crash.
struct XMLNode: Sendable, Equatable {
    /// The local name, without prefix.
    var name: String
    /// The prefix as written (`tds`), empty when none.
    var prefix: String
    /// Attributes by local name (`xmlns` declarations included as written).
    var attributes: [String: String]
    var children: [XMLNode]
    /// The element's own text (concatenated, entity-decoded, CDATA included), untrimmed.
    var text: String

    init(name: String, prefix: String = "", attributes: [String: String] = [:], children: [XMLNode] = []) {
        self.name = name
        self.prefix = prefix
        self.attributes = attributes
        self.children = children
        self.text = ""
    }

    /// The first child with this local name.
    func child(_ name: String) -> XMLNode? {
        children.first { $0.name == name }
    }

    /// A path of child names: `node["Body", "Fault", "Reason"]`.
    subscript(_ path: String...) -> XMLNode? {
        var node: XMLNode? = self
        for name in path { node = node?.child(name) }
        return node
    }

    /// The first element with this local name at any depth (self included), depth first.
    func first(_ name: String) -> XMLNode? {
        if self.name == name { return self }
        for child in children {
            if let found = child.first(name) { return found }
        }
        return nil
    }

    /// Every element with this local name at any depth, in document order.
    func all(_ name: String) -> [XMLNode] {
        var found: [XMLNode] = []
        collect(name, into: &found)
        return found
    }

    private func collect(_ name: String, into found: inout [XMLNode]) {
        if self.name == name { found.append(self) }
        for child in children { child.collect(name, into: &found) }
    }

    /// The text, trimmed; nil when empty.
    var value: String? {
        let trimmed = text.trimmingWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The value of the first descendant with this name.
    func value(of name: String) -> String? {
        first(name)?.value
    }

    /// Parses a document and returns its root element.
    ///
    /// - Throws: ``MediaError`` `invalidData` naming what was wrong and where (byte offset).
    static func parse(_ bytes: [UInt8], limit: Int = 4 << 20) throws(MediaError) -> XMLNode {
        guard bytes.count <= limit else {
            throw MediaError(.invalidData, operation: "parse XML", message: "document larger than \(limit) bytes")
        }
        var parser = XMLParserState(bytes: bytes)
        return try parser.document()
    }

    static func parse(_ text: String) throws(MediaError) -> XMLNode {
        try parse(Array(text.utf8))
    }
}

/// XML's five predefined entities, both ways.
private let predefinedEntities: [String: Character] = ["lt": "<", "gt": ">", "amp": "&", "quot": "\"", "apos": "'"]
private let entityForCharacter = Dictionary(uniqueKeysWithValues: predefinedEntities.map { ($1, "&\($0);") })

/// Escapes text for an XML element or attribute.
func xmlEscaped(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for character in text {
        if let entity = entityForCharacter[character] {
            out += entity
        } else {
            out.append(character)
        }
    }
    return out
}

private struct XMLParserState {
    let bytes: [UInt8]
    var index = 0
    static let maximumDepth = 64

    init(bytes: [UInt8]) { self.bytes = bytes }

    func fail(_ message: String) -> MediaError {
        MediaError(.invalidData, operation: "parse XML", message: "\(message) at byte \(index)")
    }

    var atEnd: Bool { index >= bytes.count }

    func peek(_ literal: String) -> Bool {
        var i = index
        for byte in literal.utf8 {
            guard i < bytes.count, bytes[i] == byte else { return false }
            i += 1
        }
        return true
    }

    mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 32 || bytes[index] == 9 || bytes[index] == 10 || bytes[index] == 13 {
            index += 1
        }
    }

    /// Skips past `terminator`; throws when it never comes.
    mutating func skip(past terminator: String, what: String) throws(MediaError) {
        while !atEnd {
            if peek(terminator) {
                index += terminator.utf8.count
                return
            }
            index += 1
        }
        throw fail("unterminated \(what)")
    }

    /// Skips the prolog, comments, processing instructions and whitespace between elements.
    mutating func skipMisc() throws(MediaError) {
        while true {
            skipWhitespace()
            if peek("<?") {
                try skip(past: "?>", what: "processing instruction")
            } else if peek("<!--") {
                try skip(past: "-->", what: "comment")
            } else if peek("<!DOCTYPE") || peek("<!doctype") {
                // Document type declarations can define entities that expand without bound; SOAP forbids them.
                throw fail("document type declarations are not allowed")
            } else {
                return
            }
        }
    }

    mutating func document() throws(MediaError) -> XMLNode {
        // A UTF-8 byte order mark.
        if peek("\u{FEFF}") { index += 3 }
        try skipMisc()
        guard peek("<") else { throw fail(atEnd ? "empty document" : "expected an element") }
        let root = try element(depth: 0)
        try skipMisc()
        guard atEnd else { throw fail("content after the root element") }
        return root
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F, 0x2D, 0x2E, 0x3A: return true
        default: return byte >= 0x80
        }
    }

    mutating func name() throws(MediaError) -> String {
        let start = index
        while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
        guard index > start else { throw fail("expected a name") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    static func split(_ qualified: String) -> (prefix: String, local: String) {
        guard let colon = qualified.lastIndex(of: ":") else { return ("", qualified) }
        return (String(qualified[..<colon]), String(qualified[qualified.index(after: colon)...]))
    }

    mutating func element(depth: Int) throws(MediaError) -> XMLNode {
        guard depth < Self.maximumDepth else { throw fail("elements nested deeper than \(Self.maximumDepth)") }
        index += 1  // <
        let qualified = try name()
        let (prefix, local) = Self.split(qualified)
        var node = XMLNode(name: local, prefix: prefix)
        // Attributes.
        while true {
            skipWhitespace()
            guard !atEnd else { throw fail("unterminated start tag <\(qualified)>") }
            if peek("/>") {
                index += 2
                return node
            }
            if bytes[index] == UInt8(ascii: ">") {
                index += 1
                break
            }
            let attribute = try name()
            skipWhitespace()
            guard !atEnd, bytes[index] == UInt8(ascii: "=") else {
                throw fail("attribute \(attribute) without a value")
            }
            index += 1
            skipWhitespace()
            guard !atEnd, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                throw fail("attribute \(attribute) value not quoted")
            }
            let quote = bytes[index]
            index += 1
            let start = index
            while index < bytes.count, bytes[index] != quote { index += 1 }
            guard !atEnd else { throw fail("unterminated attribute \(attribute)") }
            let raw = String(decoding: bytes[start..<index], as: UTF8.self)
            index += 1
            let key = attribute.hasPrefix("xmlns") ? attribute : Self.split(attribute).local
            node.attributes[key] = try decodeEntities(raw)
        }
        // Content.
        var textStart = index
        func flushText(_ state: inout XMLParserState, into node: inout XMLNode, upTo end: Int) throws(MediaError) {
            guard end > textStart else { return }
            node.text += try state.decodeEntities(String(decoding: state.bytes[textStart..<end], as: UTF8.self))
        }
        while true {
            guard !atEnd else { throw fail("<\(qualified)> is never closed") }
            guard bytes[index] == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            try flushText(&self, into: &node, upTo: index)
            if peek("</") {
                index += 2
                let closing = try name()
                guard closing == qualified else { throw fail("</\(closing)> closes <\(qualified)>") }
                skipWhitespace()
                guard !atEnd, bytes[index] == UInt8(ascii: ">") else { throw fail("unterminated end tag") }
                index += 1
                return node
            } else if peek("<![CDATA[") {
                index += 9
                let start = index
                try skip(past: "]]>", what: "CDATA section")
                node.text += String(decoding: bytes[start..<(index - 3)], as: UTF8.self)
            } else if peek("<!--") {
                try skip(past: "-->", what: "comment")
            } else if peek("<?") {
                try skip(past: "?>", what: "processing instruction")
            } else if peek("<!") {
                throw fail("unexpected declaration inside <\(qualified)>")
            } else {
                node.children.append(try element(depth: depth + 1))
            }
            textStart = index
        }
    }

    func decodeEntities(_ raw: String) throws(MediaError) -> String {
        guard raw.contains("&") else { return raw }
        var out = ""
        var rest = Substring(raw)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semicolon) <= 10 else {
                throw fail("unterminated entity reference")
            }
            let entity = rest[rest.index(after: amp)..<semicolon]
            if let character = predefinedEntities[String(entity)] {
                out.append(character)
            } else {
                var scalar: UInt32?
                if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                    scalar = UInt32(entity.dropFirst(2), radix: 16)
                } else if entity.hasPrefix("#") {
                    scalar = UInt32(entity.dropFirst())
                }
                guard let value = scalar, let unicode = Unicode.Scalar(value), value != 0 else {
                    throw fail("unknown entity &\(entity);")
                }
                out.unicodeScalars.append(unicode)
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        out += rest
        return out
    }
}
