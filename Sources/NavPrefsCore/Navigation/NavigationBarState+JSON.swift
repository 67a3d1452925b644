extension NavigationBarState {
    /// The response of "what the bar shows":
    /// `{"top", "back", "usesCustomBar", "isHidden", "title", "left", "right", "appearance", "largeTitle"}`.
    /// Both sides list their items left to right as well (`left.items`, `right.itemsLeftToRight`);
    /// a shown back button is leftmost.
    public var json: JSONValue {
        .object([
            "top": .string(top.rawValue),
            "back": jsonOrNull(back) { .string($0.rawValue) },
            "usesCustomBar": .bool(usesCustomBar),
            "isHidden": .bool(isHidden),
            "title": .object([
                "source": .string(title.source.rawValue),
                "title": jsonString(title.text),
                "titleView": jsonString(title.titleView),
            ]),
            "left": .object([
                "backButtonRule": .string(left.backButtonRule.rawValue),
                "backButton": jsonOrNull(left.backButton, \.json),
                "items": .array(left.items.map(\.json)),
                "supplementsBackButton": .bool(left.supplementsBackButton),
            ]),
            "right": .object([
                "rightBarButtonItems": .array(right.items.map(\.json)),
                "itemsLeftToRight": .array(right.itemsLeftToRight.map(\.json)),
            ]),
            "appearance": appearance.json,
            "largeTitle": .object([
                "isLarge": .bool(largeTitle.isLarge),
                "displayMode": .string(largeTitle.displayMode.rawValue),
                "rule": .string(largeTitle.rule.rawValue),
                "decidedBy": jsonOrNull(largeTitle.decidedBy) { .string($0.rawValue) },
            ]),
        ])
    }
}

extension NavigationBarState.BackButton {
    public var json: JSONValue {
        .object([
            "rule": .string(rule.rawValue),
            "target": .string(target.rawValue),
            "title": jsonString(title),
            "fallbackTitles": .array(fallbackTitles.map(JSONValue.string)),
            "image": jsonString(image),
            "displayMode": .string(displayMode.rawValue),
            "ignoresCustomView": .bool(ignoresCustomView),
        ])
    }
}

extension NavigationBarState.Appearance {
    public var json: JSONValue {
        .object([
            "barStyle": .string(barStyle.rawValue),
            "barTintColor": jsonOrNull(barTintColor, \.json),
            "barTintIsTranslucent": jsonOrNull(barTintIsTranslucent, JSONValue.bool),
            "tintColor": jsonOrNull(tintColor, \.json),
            "titleTextAttributes": jsonOrNull(titleTextAttributes, \.json),
            "backgroundImage": jsonOrNull(backgroundImage, \.json),
            "shadowImage": jsonOrNull(shadowImage, \.json),
            "isTranslucent": .bool(isTranslucent),
            "translucencySource": .string(translucency.rawValue),
            "prefersLargeTitles": .bool(prefersLargeTitles),
            "prefersLargeTitlesSource": .string(prefersLargeTitlesSource.rawValue),
            "standard": standard.json,
            "scrollEdge": scrollEdge.json,
            "compact": compact.json,
            "compactScrollEdge": compactScrollEdge.json,
        ])
    }
}

extension NavigationBarState.Layer {
    public var json: JSONValue { .object(["source": .string(source.rawValue), "appearance": appearance.json]) }
}
