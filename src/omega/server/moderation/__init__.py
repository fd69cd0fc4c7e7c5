"""Moderation: players' reports with their evidence kept, the moderators' console and actions
(warn, mute, rated ban, removed chat, reverted ratings), each logged and told to the player."""
