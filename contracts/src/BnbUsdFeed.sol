// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title BnbUsdFeed
/// @notice Minimal Chainlink-compatible aggregator (AggregatorV3Interface plus the V2 events). Each
/// `updateAnswer` starts and completes a round at once, as an OCR aggregator does.
contract BnbUsdFeed {
    struct Round {
        int256 answer;
        uint64 startedAt;
        uint64 updatedAt;
    }

    uint8 public constant decimals = 8;
    uint256 public constant version = 4;
    string public description;
    address public owner;
    address public updater;
    uint80 public latestRound;
    mapping(uint80 => Round) internal _rounds;

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);
    event NewRound(uint256 indexed roundId, address indexed startedBy, uint256 startedAt);
    event UpdaterSet(address indexed updater);

    error NotAuthorized();
    error NoData();

    constructor(string memory description_, address updater_, int256 initialAnswer) {
        description = description_;
        owner = msg.sender;
        updater = updater_;
        emit UpdaterSet(updater_);
        _update(initialAnswer);
    }

    function setUpdater(address updater_) external {
        if (msg.sender != owner) revert NotAuthorized();
        updater = updater_;
        emit UpdaterSet(updater_);
    }

    function updateAnswer(int256 answer) external {
        if (msg.sender != updater && msg.sender != owner) revert NotAuthorized();
        _update(answer);
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        return getRoundData(latestRound);
    }

    function getRoundData(uint80 roundId) public view returns (uint80, int256, uint256, uint256, uint80) {
        Round memory r = _rounds[roundId];
        if (r.updatedAt == 0) revert NoData();
        return (roundId, r.answer, r.startedAt, r.updatedAt, roundId);
    }

    function latestAnswer() external view returns (int256) {
        return _rounds[latestRound].answer;
    }

    function latestTimestamp() external view returns (uint256) {
        return _rounds[latestRound].updatedAt;
    }

    function _update(int256 answer) internal {
        uint80 id = ++latestRound;
        _rounds[id] = Round(answer, uint64(block.timestamp), uint64(block.timestamp));
        emit NewRound(id, msg.sender, block.timestamp);
        emit AnswerUpdated(answer, id, block.timestamp);
    }
}
