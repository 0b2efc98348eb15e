"""dmgbuild settings for the Tuneplan disk image: the app and an Applications shortcut to drag it onto.

Used by ``python packaging/build.py macos``, which calls ``dmgbuild.build_dmg(..., defines={"app": ...,
"icon": ...})``. By hand:

    dmgbuild -s packaging/macos/dmg_settings.py -D app=dist/Tuneplan.app "Tuneplan 0.1.0" dist/Tuneplan.dmg

dmgbuild executes this file with ``defines`` in its namespace (only on macOS: it drives ``hdiutil``).
"""

import os.path

defines = globals().get("defines", {})  # noqa: F821 (injected by dmgbuild)

application = defines.get("app", "dist/Tuneplan.app")
appname = os.path.basename(application)

# UDZO (zlib) mounts on every macOS version; ULFO (lzfse) is smaller but needs 10.11+. Both are fine for
# LSMinimumSystemVersion 11.0; UDZO keeps the tools that inspect images happy.
format = defines.get("format", "UDZO")  # noqa: A001 (dmgbuild setting name)
filesystem = "HFS+"
size = None  # computed from the contents

files = [application]
symlinks = {"Applications": "/Applications"}
if defines.get("icon"):
    icon = defines["icon"]  # volume icon (the .icns made by packaging/make_icons.py)

# Finder window: the app on the left, the Applications link on the right.
show_status_bar = False
show_tab_view = False
show_toolbar = False
show_pathbar = False
show_sidebar = False
window_rect = ((200, 120), (560, 300))
default_view = "icon-view"
arrange_by = None
icon_size = 128
text_size = 13
icon_locations = {appname: (140, 130), "Applications": (420, 130)}
hide_extensions = [appname]
