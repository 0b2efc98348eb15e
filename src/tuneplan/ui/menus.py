"""The main window's menus, found by their object names.

A view that adds entries to File, View or Tools asks for the menu here instead of being handed it, and
never by its title: titles are translated (``&File`` is ``文件(&F)`` in Chinese). The main window creates
File (with its Export chart submenu), Edit and Tools and names them with the names below; View is created
by whichever view asks for it first (the language menu, then the theme), with the same name, so there is
one View menu whatever the order; the presets and help views name the menus they add.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMenu

__all__ = [
    "EDIT_MENU",
    "EXPORT_CHART_MENU",
    "FILE_MENU",
    "HELP_MENU",
    "PRESETS_MENU",
    "TOOLS_MENU",
    "VIEW_MENU",
    "file_menu",
    "submenu_action",
    "tools_menu",
    "view_menu",
]

#: Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate

FILE_MENU = "fileMenu"
EDIT_MENU = "editMenu"
VIEW_MENU = "viewMenu"
TOOLS_MENU = "toolsMenu"
PRESETS_MENU = "presetsMenu"
HELP_MENU = "helpMenu"
#: File → Export chart (PNG/SVG): the library's entries go before it, Export report after it.
EXPORT_CHART_MENU = "exportChartMenu"


def _menu(window: QMainWindow, name: str, title: str) -> QMenu:
    """The menu bar's menu named ``name``; a new one titled ``title`` at the end of the bar when there is none."""
    for action in window.menuBar().actions():
        menu = action.menu()
        if isinstance(menu, QMenu) and menu.objectName() == name:
            return menu
    menu = window.menuBar().addMenu(title)
    menu.setObjectName(name)
    return menu


def file_menu(window: QMainWindow) -> QMenu:
    """The window's File menu."""
    return _menu(window, FILE_MENU, translate("MainWindow", "&File"))


def view_menu(window: QMainWindow) -> QMenu:
    """The window's View menu (the language and theme menus share it)."""
    return _menu(window, VIEW_MENU, translate("Theme", "&View"))


def tools_menu(window: QMainWindow) -> QMenu:
    """The window's Tools menu (pilot runs, the price book)."""
    return _menu(window, TOOLS_MENU, translate("MainWindow", "&Tools"))


def submenu_action(menu: QMenu, name: str) -> QAction | None:
    """The entry of ``menu`` that opens its submenu named ``name`` (to insert entries next to it), or None."""
    for action in menu.actions():
        sub = action.menu()
        if isinstance(sub, QMenu) and sub.objectName() == name:
            return action
    return None
