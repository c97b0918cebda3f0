// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {TaxToken, TaxTokenParams} from "./TaxToken.sol";

/// @title TokenDeployer
/// @notice Deploys TaxTokens with CREATE2 so their address is known in advance. The salt is bound
/// to the caller, so nobody can deploy a token at someone else's predicted address first.
/// Holding the token bytecode here keeps the launch contracts under the code size limit.
contract TokenDeployer {
    event TokenDeployed(address indexed token, address indexed caller, bytes32 salt);

    function deploy(bytes32 salt, TaxTokenParams calldata p) external returns (address token) {
        token = address(new TaxToken{salt: keccak256(abi.encode(msg.sender, salt))}(p));
        emit TokenDeployed(token, msg.sender, salt);
    }

    function predict(address caller, bytes32 salt, TaxTokenParams calldata p) external view returns (address) {
        bytes32 initHash = keccak256(abi.encodePacked(type(TaxToken).creationCode, abi.encode(p)));
        bytes32 h = keccak256(
            abi.encodePacked(hex"ff", address(this), keccak256(abi.encode(caller, salt)), initHash)
        );
        return address(uint160(uint256(h)));
    }
}
