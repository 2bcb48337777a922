"""The Corps of Discovery game engine: rules, chapters as plug-ins, bots and playtests."""
